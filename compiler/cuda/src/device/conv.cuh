// Convolutions (NCHW and NCDHW, fp32): an implicit GEMM tiled through shared memory for
// dense and grouped convolutions, a TF32 tensor-core variant of it, and a
// direct kernel for depthwise convolutions.
//
// The implicit GEMM of one group g: Y[m][n] = sum_k W[m][k] * X[k][n] with
// m an output channel of the group, n = (image, oh, ow) and k = (channel of
// the group, kh, kw). W is the weight tensor as ONNX stores it ([M][CG*KH*KW]
// per group); X is the im2col matrix, never materialised: each tile of it is
// gathered from the input with padding read as zero. The epilogue adds the
// bias, applies the activation, adds the residual (a fused Add) and applies
// the Add's activation before the only store.

namespace vdla {

// The X-tile element (k, n) for a thread whose column n is decomposed once
// into its image and window origin.
template <class P>
__device__ __forceinline__ float im2colLoad(const float* __restrict__ xg, int k, bool n_ok, int img,
                                            const WindowOrigin<P>& o) {
  constexpr int KPLANE = P::KH * P::KW;
  constexpr int KVOL = P::KD * KPLANE;
  if (!n_ok || k >= P::CG * KVOL) return 0.0f;
  const int c = k / KVOL;
  const int r = k - c * KVOL;
  const int kd = r / KPLANE;
  const int r2 = r - kd * KPLANE;
  const int kh = r2 / P::KW;
  const int kw = r2 - kh * P::KW;
  const int id = o.id0 + kd * P::DD;
  const int ih = o.ih0 + kh * P::DH;
  const int iw = o.iw0 + kw * P::DW;
  if (id < 0 || id >= P::D || ih < 0 || ih >= P::H || iw < 0 || iw >= P::W) return 0.0f;
  return xg[(((img * P::C + c) * P::D + id) * P::H + ih) * P::W + iw];
}

// The epilogue of one output element y[(img, g*MG + m, od, oh, ow)].
template <class P>
__device__ __forceinline__ void convStore(float acc, int g, int m, int n, const float* __restrict__ bias,
                                          const float* __restrict__ res, float* __restrict__ y) {
  constexpr int OVOL = P::OD * P::OH * P::OW;
  const int img = n / OVOL;
  const int p = n - img * OVOL;
  const int oc = g * P::MG + m;
  const int idx = (img * P::M + oc) * OVOL + p;
  float v = acc;
  if (P::has_bias) v += bias[oc];
  v = activate<P>(v);
  if (P::has_res) v = activate2<P>(v + res[idx]);
  y[idx] = v;
}

// Block tile BM x BN, K step BK; each thread computes TM x TN outputs. When
// TM and TN are multiples of four, a thread owns groups of four consecutive
// rows and columns, read from shared memory as one float4 each: a quarter of
// the shared-memory instructions per FMA, which is what bounds the scalar
// form. Otherwise its rows are strided by BM/TM and its columns by BN/TN so
// that a warp reads consecutive words. Two shared-memory buffers: the next
// tile is fetched into registers while the current one is multiplied, so one
// barrier per K step suffices.
template <class P, int BM, int BN, int BK, int TM, int TN>
__device__ __forceinline__ void convImplicitGemm(const float* __restrict__ x, const float* __restrict__ w,
                                                 const float* __restrict__ bias, const float* __restrict__ res,
                                                 float* __restrict__ y) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  constexpr int K = P::CG * P::KD * P::KH * P::KW;
  constexpr int OVOL = P::OD * P::OH * P::OW;
  constexpr int NTOT = P::N * OVOL;
  constexpr int A_LOADS = BM * BK / THREADS;
  constexpr int B_LOADS = BK * BN / THREADS;
  static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "tile loads must divide evenly");
  static_assert(THREADS % BN == 0 && THREADS % BK == 0, "each thread keeps one column (B) and one k (A)");
  constexpr bool VEC = TM % 4 == 0 && TN % 4 == 0;
  static_assert(BM % 4 == 0 && BN % 4 == 0, "float4 rows of the shared tiles");
  __shared__ __align__(16) float As[2][BK][BM + 4];
  __shared__ __align__(16) float Bs[2][BK][BN];

  const int tid = threadIdx.x;
  const int g = blockIdx.z;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const float* __restrict__ wg = w + g * P::MG * K;
  const float* __restrict__ xg = x + g * P::CG * P::D * P::H * P::W;

  // This thread's B column and its decomposition (fixed for all K steps).
  const int bn = tid % BN;
  const int bk0 = tid / BN;
  const int n = n0 + bn;
  const bool n_ok = n < NTOT;
  const int img = n_ok ? n / OVOL : 0;
  const WindowOrigin<P> origin(n_ok ? n - img * OVOL : 0);
  // This thread's A k column and rows.
  const int ak = tid % BK;
  const int am0 = tid / BK;

  float ra[A_LOADS], rb[B_LOADS];
  auto fetch = [&](int k0) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int m = m0 + am0 + i * (THREADS / BK);
      const int k = k0 + ak;
      ra[i] = (m < P::MG && k < K) ? wg[m * K + k] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) rb[i] = im2colLoad<P>(xg, k0 + bk0 + i * (THREADS / BN), n_ok, img, origin);
  };
  auto stash = [&](int buf) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) As[buf][ak][am0 + i * (THREADS / BK)] = ra[i];
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i) Bs[buf][bk0 + i * (THREADS / BN)][bn] = rb[i];
  };

  const int ty = tid / (BN / TN);
  const int tx = tid % (BN / TN);
  // The tile row of this thread's i-th accumulator row, and likewise columns.
  auto rowOf = [&](int i) { return VEC ? (i / 4) * (BM * 4 / TM) + ty * 4 + i % 4 : ty + i * (BM / TM); };
  auto colOf = [&](int j) { return VEC ? (j / 4) * (BN * 4 / TN) + tx * 4 + j % 4 : tx + j * (BN / TN); };
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  constexpr int KT = (K + BK - 1) / BK;
  fetch(0);
  stash(0);
  __syncthreads();
  for (int kt = 0; kt < KT; ++kt) {
    const int cur = kt & 1;
    if (kt + 1 < KT) fetch((kt + 1) * BK);
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
      if constexpr (VEC) {
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const float4 v = *reinterpret_cast<const float4*>(&As[cur][kk][rowOf(i)]);
          a[i] = v.x, a[i + 1] = v.y, a[i + 2] = v.z, a[i + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float4 v = *reinterpret_cast<const float4*>(&Bs[cur][kk][colOf(j)]);
          b[j] = v.x, b[j + 1] = v.y, b[j + 2] = v.z, b[j + 3] = v.w;
        }
      } else {
#pragma unroll
        for (int i = 0; i < TM; ++i) a[i] = As[cur][kk][rowOf(i)];
#pragma unroll
        for (int j = 0; j < TN; ++j) b[j] = Bs[cur][kk][colOf(j)];
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    if (kt + 1 < KT) stash(cur ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + rowOf(i);
    if (m >= P::MG) continue;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int nn = n0 + colOf(j);
      if (nn < NTOT) convStore<P>(acc[i][j], g, m, nn, bias, res, y);
    }
  }
}

// Depthwise (and any convolution with one input channel per group): one thread
// per output element, the window read straight from global memory (the reuse
// across neighbouring threads is served by the L1 cache).
template <class P>
__device__ __forceinline__ void convDirect(const float* __restrict__ x, const float* __restrict__ w,
                                           const float* __restrict__ bias, const float* __restrict__ res,
                                           float* __restrict__ y) {
  constexpr int OVOL = P::OD * P::OH * P::OW;
  constexpr int TOTAL = P::N * P::M * OVOL;
  for (int idx = globalThread(); idx < TOTAL; idx += gridThreads()) {
    const int p = idx % OVOL;
    const int oc = (idx / OVOL) % P::M;
    const int img = idx / (OVOL * P::M);
    const int g = oc / P::MG;
    const WindowOrigin<P> o(p);
    float acc = 0.0f;
    for (int c = 0; c < P::CG; ++c) {
      const float* __restrict__ xc = x + (img * P::C + g * P::CG + c) * P::D * P::H * P::W;
      const float* __restrict__ wc = w + (oc * P::CG + c) * P::KD * P::KH * P::KW;
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
            acc = fmaf(wc[(kd * P::KH + kh) * P::KW + kw], xc[(id * P::H + ih) * P::W + iw], acc);
          }
        }
      }
    }
    float v = acc;
    if (P::has_bias) v += bias[oc];
    v = activate<P>(v);
    if (P::has_res) v = activate2<P>(v + res[idx]);
    y[idx] = v;
  }
}

}  // namespace vdla
