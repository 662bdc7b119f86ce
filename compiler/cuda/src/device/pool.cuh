// Pooling over the planes of NCHW / NCDHW tensors. MaxPool and AveragePool:
// one thread per output element; AveragePool divides by the taps inside the
// input (count_include_pad = 0) or inside the input and its explicit padding
// (count_include_pad = 1), never counting taps past the padding that
// ceil_mode can create. Global pooling: one warp per plane.
//
// P: planes, the window members of WindowOrigin plus PDE, PHE, PWE (end pads),
// count_include_pad.
namespace vdla {

template <class P>
__device__ __forceinline__ void maxPool(const float* __restrict__ x, float* __restrict__ y) {
  constexpr int OVOL = P::OD * P::OH * P::OW;
  constexpr int TOTAL = P::planes * OVOL;
  for (int idx = globalThread(); idx < TOTAL; idx += gridThreads()) {
    const int plane = idx / OVOL;
    const WindowOrigin<P> o(idx - plane * OVOL);
    const float* __restrict__ xp = x + plane * P::D * P::H * P::W;
    float m = -3.402823466e38f;
    bool any = false;
#pragma unroll
    for (int kd = 0; kd < P::KD; ++kd) {
      const int id = o.id0 + kd * P::DD;
      if (id < 0 || id >= P::D) continue;
#pragma unroll
      for (int kh = 0; kh < P::KH; ++kh) {
        const int ih = o.ih0 + kh * P::DH;
        if (ih < 0 || ih >= P::H) continue;
#pragma unroll
        for (int kw = 0; kw < P::KW; ++kw) {
          const int iw = o.iw0 + kw * P::DW;
          if (iw < 0 || iw >= P::W) continue;
          const float v = xp[(id * P::H + ih) * P::W + iw];
          // NaN propagates, as the reference's comparison keeps it.
          if (!any || v > m || v != v) m = v;
          any = true;
        }
      }
    }
    y[idx] = m;
  }
}

template <class P>
__device__ __forceinline__ void averagePool(const float* __restrict__ x, float* __restrict__ y) {
  constexpr int OVOL = P::OD * P::OH * P::OW;
  constexpr int TOTAL = P::planes * OVOL;
  for (int idx = globalThread(); idx < TOTAL; idx += gridThreads()) {
    const int plane = idx / OVOL;
    const WindowOrigin<P> o(idx - plane * OVOL);
    const float* __restrict__ xp = x + plane * P::D * P::H * P::W;
    float sum = 0.0f;
    int inside = 0, padded = 0;
    for (int kd = 0; kd < P::KD; ++kd) {
      const int id = o.id0 + kd * P::DD;
      const bool d_in = id >= 0 && id < P::D;
      const bool d_pad = id >= -P::PD && id < P::D + P::PDE;
      for (int kh = 0; kh < P::KH; ++kh) {
        const int ih = o.ih0 + kh * P::DH;
        const bool h_in = ih >= 0 && ih < P::H;
        const bool h_pad = ih >= -P::PH && ih < P::H + P::PHE;
        for (int kw = 0; kw < P::KW; ++kw) {
          const int iw = o.iw0 + kw * P::DW;
          const bool w_in = iw >= 0 && iw < P::W;
          const bool w_pad = iw >= -P::PW && iw < P::W + P::PWE;
          if (d_pad && h_pad && w_pad) ++padded;
          if (d_in && h_in && w_in) {
            sum += xp[(id * P::H + ih) * P::W + iw];
            ++inside;
          }
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
