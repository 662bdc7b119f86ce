// Pooling over NCHW planes. MaxPool and AveragePool: one thread per output
// element; AveragePool divides by the taps inside the input
// (count_include_pad = 0) or inside the input and its explicit padding
// (count_include_pad = 1), never counting taps past the padding that
// ceil_mode can create. Global pooling: one warp per plane.
//
// P: planes, H, W, OH, OW, KH, KW, SH, SW, PH, PW, PHE, PWE (end pads), DH, DW,
// count_include_pad.
namespace vdla {

template <class P>
__device__ __forceinline__ void maxPool(const float* __restrict__ x, float* __restrict__ y) {
  constexpr int TOTAL = P::planes * P::OH * P::OW;
  for (int idx = globalThread(); idx < TOTAL; idx += gridThreads()) {
    const int ow = idx % P::OW, oh = (idx / P::OW) % P::OH, plane = idx / (P::OH * P::OW);
    const float* __restrict__ xp = x + plane * P::H * P::W;
    float m = -3.402823466e38f;
    bool any = false;
#pragma unroll
    for (int kh = 0; kh < P::KH; ++kh) {
      const int ih = oh * P::SH - P::PH + kh * P::DH;
      if (ih < 0 || ih >= P::H) continue;
#pragma unroll
      for (int kw = 0; kw < P::KW; ++kw) {
        const int iw = ow * P::SW - P::PW + kw * P::DW;
        if (iw < 0 || iw >= P::W) continue;
        const float v = xp[ih * P::W + iw];
        // NaN propagates, as the reference's comparison keeps it.
        if (!any || v > m || v != v) m = v;
        any = true;
      }
    }
    y[idx] = m;
  }
}

template <class P>
__device__ __forceinline__ void averagePool(const float* __restrict__ x, float* __restrict__ y) {
  constexpr int TOTAL = P::planes * P::OH * P::OW;
  for (int idx = globalThread(); idx < TOTAL; idx += gridThreads()) {
    const int ow = idx % P::OW, oh = (idx / P::OW) % P::OH, plane = idx / (P::OH * P::OW);
    const float* __restrict__ xp = x + plane * P::H * P::W;
    float sum = 0.0f;
    int inside = 0, padded = 0;
    for (int kh = 0; kh < P::KH; ++kh) {
      const int ih = oh * P::SH - P::PH + kh * P::DH;
      const bool h_in = ih >= 0 && ih < P::H;
      const bool h_pad = ih >= -P::PH && ih < P::H + P::PHE;
      for (int kw = 0; kw < P::KW; ++kw) {
        const int iw = ow * P::SW - P::PW + kw * P::DW;
        const bool w_in = iw >= 0 && iw < P::W;
        const bool w_pad = iw >= -P::PW && iw < P::W + P::PWE;
        if (h_pad && w_pad) ++padded;
        if (h_in && w_in) {
          sum += xp[ih * P::W + iw];
          ++inside;
        }
      }
    }
    const int count = P::count_include_pad ? padded : inside;
    y[idx] = count > 0 ? sum / (float)count : 0.0f;
  }
}

// Global pooling: warp w reduces plane w.
template <class P, bool IsMax>
__device__ __forceinline__ void globalPool(const float* __restrict__ x, float* __restrict__ y) {
  const int lane = threadIdx.x % 32;
  const int plane = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (plane >= P::planes) return;  // whole warps leave together
  const float* __restrict__ xp = x + plane * P::volume;
  float v = IsMax ? -3.402823466e38f : 0.0f;
  bool nan = false;
  for (int i = lane; i < P::volume; i += 32) {
    const float e = xp[i];
    nan |= e != e;
    v = IsMax ? fmaxf(v, e) : v + e;
  }
  v = IsMax ? warpMax(v) : warpSum(v);
  if (IsMax) nan = __any_sync(0xffffffffu, nan);
  if (lane == 0) y[plane] = IsMax ? (nan ? __int_as_float(0x7fc00000) : v) : v / (float)P::volume;
}

}  // namespace vdla
