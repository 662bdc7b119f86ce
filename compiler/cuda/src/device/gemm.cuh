// Matrix products: Gemm (transposes, alpha, beta * C broadcast, fused
// activation) and MatMul (numpy batch broadcasting). One kernel serves both:
// operands are addressed through strides the generator computes, so a
// transposed operand is only a different pair of strides.
//
// P: M, N, K; a_sm, a_sk, b_sk, b_sn (element strides); batch (number of
// output matrices), batch_rank, bdims[] (output batch dims), a_bstr[],
// b_bstr[] (operand batch strides, 0 where broadcast); has_c, c_sm, c_sn,
// alpha, beta; activation.
namespace vdla {

template <class P>
__device__ __forceinline__ void batchOffsets(int batch, int& a_off, int& b_off) {
  a_off = 0;
  b_off = 0;
  for (int d = P::batch_rank - 1; d >= 0; --d) {
    const int i = batch % P::bdims[d];
    batch /= P::bdims[d];
    a_off += i * P::a_bstr[d];
    b_off += i * P::b_bstr[d];
  }
}

// Output tile 32 x 32, K step 32, 256 threads with 2 x 2 outputs each (rows
// and columns strided by 16 so that a warp touches consecutive words).
template <class P>
__device__ __forceinline__ void matmul(const float* __restrict__ a, const float* __restrict__ b,
                                       const float* __restrict__ c, float* __restrict__ y) {
  constexpr int T = 32;
  __shared__ float As[T][T + 1];
  __shared__ float Bs[T][T + 1];
  const int tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int m0 = blockIdx.y * T, n0 = blockIdx.x * T;
  const int batch = blockIdx.z;
  int a_off, b_off;
  batchOffsets<P>(batch, a_off, b_off);
  float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  for (int k0 = 0; k0 < P::K; k0 += T) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int e = tid + i * 256;
      const int r = e / T, q = e % T;
      // A tile [m][k] and B tile [k][n], consecutive threads along the last index.
      const int m = m0 + r, ka = k0 + q;
      As[r][q] = (m < P::M && ka < P::K) ? a[a_off + m * P::a_sm + ka * P::a_sk] : 0.0f;
      const int kb = k0 + r, nb = n0 + q;
      Bs[r][q] = (kb < P::K && nb < P::N) ? b[b_off + kb * P::b_sk + nb * P::b_sn] : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int kk = 0; kk < T; ++kk) {
      const float a0 = As[ty][kk], a1 = As[ty + 16][kk];
      const float b0 = Bs[kk][tx], b1 = Bs[kk][tx + 16];
      acc[0][0] = fmaf(a0, b0, acc[0][0]);
      acc[0][1] = fmaf(a0, b1, acc[0][1]);
      acc[1][0] = fmaf(a1, b0, acc[1][0]);
      acc[1][1] = fmaf(a1, b1, acc[1][1]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
      if (m >= P::M || n >= P::N) continue;
      float v = P::alpha * acc[i][j];
      if (P::has_c) v += P::beta * c[m * P::c_sm + n * P::c_sn];
      y[(batch * P::M + m) * P::N + n] = activate<P>(v);
    }
}

}  // namespace vdla
