// Data movement: copies (Reshape and friends), Transpose, Pad, Gather. Generic
// in the element type T (the generator names the C++ type).
namespace vdla {

template <class T>
__device__ __forceinline__ void copy(const T* __restrict__ x, T* __restrict__ y, int total) {
  for (int i = globalThread(); i < total; i += gridThreads()) y[i] = x[i];
}

// P: total, rank, odims[] (output shape), src_str[] (input stride of each output dim).
template <class P, class T>
__device__ __forceinline__ void transpose(const T* __restrict__ x, T* __restrict__ y) {
  for (int i = globalThread(); i < P::total; i += gridThreads()) {
    int off = 0, rest = i;
    for (int d = P::rank - 1; d >= 0; --d) {
      off += (rest % P::odims[d]) * P::src_str[d];
      rest /= P::odims[d];
    }
    y[i] = x[off];
  }
}

// Source index along one dimension, -1 for the constant; reflect mirrors
// without repeating the edge (numpy), as often as needed.
template <int Mode>
__device__ __forceinline__ int padSource(int i, int n) {
  if (i >= 0 && i < n) return i;
  if (Mode == 0) return -1;
  if (Mode == 1) return i < 0 ? 0 : n - 1;
  if (n == 1) return 0;
  const int period = 2 * (n - 1);
  const int m = ((i % period) + period) % period;
  return m < n ? m : period - m;
}

// P: total, rank, odims[], idims[], istr[], begin[], mode (0 constant, 1 edge,
// 2 reflect). The constant comes from `value` (a device scalar) or P::fill.
template <class P, class T>
__device__ __forceinline__ void pad(const T* __restrict__ x, const T* __restrict__ value, T* __restrict__ y) {
  for (int i = globalThread(); i < P::total; i += gridThreads()) {
    int off = 0, rest = i;
    bool inside = true;
    for (int d = P::rank - 1; d >= 0; --d) {
      const int c = rest % P::odims[d];
      rest /= P::odims[d];
      const int s = padSource<P::mode>(c - P::begin[d], P::idims[d]);
      if (s < 0)
        inside = false;
      else
        off += s * P::istr[d];
    }
    y[i] = inside ? x[off] : (value ? *value : (T)P::fill);
  }
}

// P: total, inner, count (indices), size (data's gathered axis). Indices out of
// [-size, size) (only possible for indices computed at run time; constant ones
// are checked when compiling) give 0 rather than a read out of bounds.
template <class P, class T, class I>
__device__ __forceinline__ void gather(const T* __restrict__ x, const I* __restrict__ idx, T* __restrict__ y) {
  for (int i = globalThread(); i < P::total; i += gridThreads()) {
    const int in = i % P::inner;
    const int j = (i / P::inner) % P::count;
    const int o = i / (P::inner * P::count);
    long long k = (long long)idx[j];
    if (k < 0) k += P::size;
    y[i] = (k >= 0 && k < P::size) ? x[((long long)o * P::size + k) * P::inner + in] : (T)0;
  }
}

}  // namespace vdla
