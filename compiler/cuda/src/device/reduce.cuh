// Softmax / LogSoftmax along one axis and the Reduce* family.
namespace vdla {

// One warp per line (outer o, inner i): elements o * count * inner + i + j * inner.
// P: lines, count, inner.
template <class P, bool IsLog>
__device__ __forceinline__ void softmax(const float* __restrict__ x, float* __restrict__ y) {
  const int lane = threadIdx.x % 32;
  const int line = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (line >= P::lines) return;  // whole warps leave together
  const int o = line / P::inner, i = line % P::inner;
  const int base = o * P::count * P::inner + i;
  float m = -3.402823466e38f;
  for (int j = lane; j < P::count; j += 32) m = fmaxf(m, x[base + j * P::inner]);
  m = warpMax(m);
  float s = 0.0f;
  for (int j = lane; j < P::count; j += 32) s += expf(x[base + j * P::inner] - m);
  s = warpSum(s);
  const float log_s = logf(s);
  for (int j = lane; j < P::count; j += 32) {
    const float d = x[base + j * P::inner] - m;
    y[base + j * P::inner] = IsLog ? d - log_s : expf(d) / s;
  }
}

// Reduce over some axes: one thread per output element (sums in double, as
// the reference kernel). P: outputs, kept_rank, kdims[] (input shape with
// reduced axes set to 1), kstr[] (input strides of those dims), red_rank,
// rdims[], rstr[] (sizes and input strides of the reduced axes), rvol, kind
// (0 mean, 1 sum, 2 max, 3 min).
template <class P>
__device__ __forceinline__ void reduce(const float* __restrict__ x, float* __restrict__ y) {
  for (int o = globalThread(); o < P::outputs; o += gridThreads()) {
    int base = 0, rest = o;
    for (int d = P::kept_rank - 1; d >= 0; --d) {
      base += (rest % P::kdims[d]) * P::kstr[d];
      rest /= P::kdims[d];
    }
    double acc = P::kind == 2 ? -1.0e308 : P::kind == 3 ? 1.0e308 : 0.0;
    for (int r = 0; r < P::rvol; ++r) {
      int off = base, q = r;
      for (int d = P::red_rank - 1; d >= 0; --d) {
        off += (q % P::rdims[d]) * P::rstr[d];
        q /= P::rdims[d];
      }
      const double v = x[off];
      if (P::kind == 2)
        acc = v > acc ? v : acc;
      else if (P::kind == 3)
        acc = v < acc ? v : acc;
      else
        acc += v;
    }
    y[o] = (float)(P::kind == 0 ? acc / (double)P::rvol : acc);
  }
}

}  // namespace vdla
