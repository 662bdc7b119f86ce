// Elementwise operators. Unary functions are named by the generator (an
// expression in `v`); binary operators broadcast numpy-style through strides
// the generator computes (0 on broadcast dimensions), with a flat fast path
// when both operands have the output's shape.
//
// P: total, rank, dims[] (output shape), a_str[], b_str[], same_shape.
namespace vdla {

template <class P>
__device__ __forceinline__ void broadcastOffsets(int i, int& ia, int& ib) {
  if (P::same_shape) {
    ia = i;
    ib = i;
    return;
  }
  ia = 0;
  ib = 0;
  for (int d = P::rank - 1; d >= 0; --d) {
    const int c = i % P::dims[d];
    i /= P::dims[d];
    ia += c * P::a_str[d];
    ib += c * P::b_str[d];
  }
}

// BatchNormalization (inference) over dimension 1 of [N, C, ...].
template <class P>
__device__ __forceinline__ void batchNorm(const float* __restrict__ x, const float* __restrict__ scale,
                                          const float* __restrict__ bias, const float* __restrict__ mean,
                                          const float* __restrict__ var, float* __restrict__ y) {
  for (int i = globalThread(); i < P::total; i += gridThreads()) {
    const int c = (i / P::inner) % P::C;
    y[i] = (x[i] - mean[c]) / sqrtf(var[c] + P::epsilon) * scale[c] + bias[c];
  }
}

}  // namespace vdla
