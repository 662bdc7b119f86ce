// The one matrix product under Conv, Gemm, MatMul and their integer forms:
// C[M][N] += A[M][K] * B[K][N], row-major with leading dimensions. Plain loops,
// blocked so that a panel of B stays in cache and four rows of C share each
// load of B; the innermost loop runs over contiguous columns, which compilers
// vectorise without reassociating any sum (each C element still accumulates
// its K products in order k = 0, 1, ...).
#pragma once

#include <algorithm>
#include <cstdint>

namespace vdla::rt::ref {

template <typename T>
void gemmAccumulate(int64_t M, int64_t N, int64_t K, const T* A, int64_t lda, const T* B, int64_t ldb, T* C,
                    int64_t ldc) {
  constexpr int64_t kBlockN = 512, kBlockK = 128;
  for (int64_t n0 = 0; n0 < N; n0 += kBlockN) {
    const int64_t nb = std::min(kBlockN, N - n0);
    for (int64_t k0 = 0; k0 < K; k0 += kBlockK) {
      const int64_t kb = std::min(kBlockK, K - k0);
      int64_t m = 0;
      for (; m + 4 <= M; m += 4) {
        T* __restrict__ c0 = C + (m + 0) * ldc + n0;
        T* __restrict__ c1 = C + (m + 1) * ldc + n0;
        T* __restrict__ c2 = C + (m + 2) * ldc + n0;
        T* __restrict__ c3 = C + (m + 3) * ldc + n0;
        for (int64_t k = k0; k < k0 + kb; ++k) {
          const T* __restrict__ b = B + k * ldb + n0;
          const T a0 = A[(m + 0) * lda + k], a1 = A[(m + 1) * lda + k];
          const T a2 = A[(m + 2) * lda + k], a3 = A[(m + 3) * lda + k];
          for (int64_t j = 0; j < nb; ++j) {
            const T bj = b[j];
            c0[j] += a0 * bj;
            c1[j] += a1 * bj;
            c2[j] += a2 * bj;
            c3[j] += a3 * bj;
          }
        }
      }
      for (; m < M; ++m) {
        T* __restrict__ c = C + m * ldc + n0;
        for (int64_t k = k0; k < k0 + kb; ++k) {
          const T* __restrict__ b = B + k * ldb + n0;
          const T a = A[m * lda + k];
          for (int64_t j = 0; j < nb; ++j) c[j] += a * b[j];
        }
      }
    }
  }
}

}  // namespace vdla::rt::ref
