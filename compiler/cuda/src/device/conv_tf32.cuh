// The implicit-GEMM convolution on tensor cores (TF32 inputs, fp32
// accumulation), through the WMMA m16n16k8 TF32 fragments of sm_80 and later.
// Only included when the TF32 path is switched on: TF32 keeps 10 mantissa
// bits, so results differ from fp32 by about 1e-3 relative, at the edge of the
// backend's fp32 tolerance.
//
// Block tile 64 x 64 x 16 with four warps, each owning a 32 x 32 quadrant as
// 2 x 2 accumulator fragments. Tiles are gathered as in convImplicitGemm
// (im2col on the fly, padding as zero); the accumulators go through shared
// memory so that the common epilogue (bias, activation, residual) runs per
// element. Leading dimensions are multiples of 4 floats and fragment origins
// 32-byte aligned, as wmma::load_matrix_sync requires.

namespace vdla {

template <class P>
__device__ __forceinline__ void convImplicitGemmTf32(const float* __restrict__ x, const float* __restrict__ w,
                                                     const float* __restrict__ bias, const float* __restrict__ res,
                                                     float* __restrict__ y) {
  using namespace nvcuda;
  constexpr int BM = 64, BN = 64, BK = 16, THREADS = 128;
  constexpr int K = P::CG * P::KD * P::KH * P::KW;
  constexpr int OVOL = P::OD * P::OH * P::OW;
  constexpr int NTOT = P::N * OVOL;
  constexpr int LDA = BK + 4, LDB = BN + 4, LDC = BN + 4;
  __shared__ __align__(32) float As[BM * LDA];
  __shared__ __align__(32) float Bs[BK * LDB];
  __shared__ __align__(32) float Cs[BM * LDC];

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int g = blockIdx.z;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const float* __restrict__ wg = w + g * P::MG * K;
  const float* __restrict__ xg = x + g * P::CG * P::D * P::H * P::W;

  // B tile: each thread keeps column tid % 64 and rows tid / 64 + 2 i.
  const int bn = tid % BN;
  const int n = n0 + bn;
  const bool n_ok = n < NTOT;
  const int img = n_ok ? n / OVOL : 0;
  const WindowOrigin<P> origin(n_ok ? n - img * OVOL : 0);

  wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  const int wm = (warp / 2) * 32, wn = (warp % 2) * 32;

  for (int k0 = 0; k0 < K; k0 += BK) {
    // A tile 64 x 16: 8 elements per thread, consecutive threads along k.
#pragma unroll
    for (int i = 0; i < BM * BK / THREADS; ++i) {
      const int e = tid + i * THREADS;
      const int am = e / BK, ak = e % BK;
      const int m = m0 + am, k = k0 + ak;
      As[am * LDA + ak] = (m < P::MG && k < K) ? wg[m * K + k] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < BK * BN / THREADS; ++i) {
      const int bk = tid / BN + i * (THREADS / BN);
      Bs[bk * LDB + bn] = im2colLoad<P>(xg, k0 + bk, n_ok, img, origin);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 8) {
      wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        wmma::load_matrix_sync(a[i], As + (wm + 16 * i) * LDA + kk, LDA);
#pragma unroll
        for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
      }
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        wmma::load_matrix_sync(b[j], Bs + kk * LDB + wn + 16 * j, LDB);
#pragma unroll
        for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(Cs + (wm + 16 * i) * LDC + wn + 16 * j, acc[i][j], LDC, wmma::mem_row_major);
  __syncthreads();
  for (int e = tid; e < BM * BN; e += THREADS) {
    const int m = m0 + e / BN, nn = n0 + e % BN;
    if (m < P::MG && nn < NTOT) convStore<P>(Cs[(e / BN) * LDC + e % BN], g, m, nn, bias, res, y);
  }
}

}  // namespace vdla
