// Integer operators: the convolutions and matrix products of quantised
// graphs (ConvInteger, QLinearConv, vdla.QConv, MatMulInteger, QLinearMatMul,
// com.microsoft.QGemm) and the quantised element-wise and pooling operators.
// Their arithmetic follows the reference kernels exactly
// (runtime/src/kernels/reference): products of zero-point-centred integers
// summed in 32 bits (unsigned, so that vdla.QConv's defined wrap-around holds),
// requantisation in float with the same operation order, round half to even,
// saturation.
//
// The convolution is the implicit GEMM of conv.cuh in integers: each K step
// gathers a tile of weights and a tile of the (never materialised) im2col
// matrix into shared memory, with padding positions holding the operator's
// padding value. An epilogue object turns each 32-bit sum into the output.

namespace vdla {

// Round half to even, add the zero point, saturate to T (the reference's
// quantizeValue): NaN and values below the range give the lowest value.
template <class T>
__device__ __forceinline__ T quantizeTo(float v, int zero_point, float lo, float hi) {
  const float q = rintf(v) + (float)zero_point;
  if (!(q >= lo)) return (T)lo;
  if (q >= hi) return (T)hi;
  return (T)q;
}

// rshr(v, s): round-half-up arithmetic shift right, exact in 64 bits.
__device__ __forceinline__ int roundingShiftRight(int v, int shift) {
  if (shift == 0) return v;
  return (int)(((long long)v + (1LL << (shift - 1))) >> shift);
}

// The im2col element (k, n) of one group, as the centred value
// (inside ? x : pad_value) - x_sub.
template <class P, class TX>
__device__ __forceinline__ int intIm2colLoad(const TX* __restrict__ xg, int k, bool n_ok, int img,
                                             const WindowOrigin<P>& o, int pad_value, int x_sub) {
  constexpr int KPLANE = P::KH * P::KW;
  constexpr int KVOL = P::KD * KPLANE;
  if (!n_ok || k >= P::CG * KVOL) return 0;
  const int c = k / KVOL;
  const int r = k - c * KVOL;
  const int kd = r / KPLANE;
  const int r2 = r - kd * KPLANE;
  const int kh = r2 / P::KW;
  const int kw = r2 - kh * P::KW;
  const int id = o.id0 + kd * P::DD;
  const int ih = o.ih0 + kh * P::DH;
  const int iw = o.iw0 + kw * P::DW;
  if (id < 0 || id >= P::D || ih < 0 || ih >= P::H || iw < 0 || iw >= P::W) return pad_value - x_sub;
  return (int)xg[(((img * P::C + c) * P::D + id) * P::H + ih) * P::W + iw] - x_sub;
}

// Y[m][n] = sum_k (W[m][k] - w_sub[m]) * (X[k][n] - x_sub) for one group of
// an integer convolution, tiled as convImplicitGemm; `epi.store(sum, oc,
// index)` writes each output element.
template <class P, int BM, int BN, int BK, int TM, int TN, class TX, class TW, class Epilogue>
__device__ __forceinline__ void intConvGemm(const TX* __restrict__ x, int pad_value, int x_sub,
                                            const TW* __restrict__ w, const TW* __restrict__ w_zp,
                                            const Epilogue& epi) {
  constexpr int THREADS = (BM / TM) * (BN / TN);
  constexpr int K = P::CG * P::KD * P::KH * P::KW;
  constexpr int OVOL = P::OD * P::OH * P::OW;
  constexpr int NTOT = P::N * OVOL;
  constexpr int A_LOADS = BM * BK / THREADS;
  constexpr int B_LOADS = BK * BN / THREADS;
  static_assert(BM * BK % THREADS == 0 && BK * BN % THREADS == 0, "tile loads must divide evenly");
  static_assert(THREADS % BN == 0 && THREADS % BK == 0, "each thread keeps one column (B) and one k (A)");
  __shared__ int As[BK][BM + 1];
  __shared__ int Bs[BK][BN];

  const int tid = threadIdx.x;
  const int g = blockIdx.z;
  const int m0 = blockIdx.y * BM;
  const int n0 = blockIdx.x * BN;
  const TW* __restrict__ wg = w + g * P::MG * K;
  const TX* __restrict__ xg = x + g * P::CG * P::D * P::H * P::W;

  const int bn = tid % BN;
  const int bk0 = tid / BN;
  const int n = n0 + bn;
  const bool n_ok = n < NTOT;
  const int img = n_ok ? n / OVOL : 0;
  const WindowOrigin<P> origin(n_ok ? n - img * OVOL : 0);
  const int ak = tid % BK;
  const int am0 = tid / BK;

  const int ty = tid / (BN / TN);
  const int tx = tid % (BN / TN);
  unsigned acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0u;

  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < A_LOADS; ++i) {
      const int m = m0 + am0 + i * (THREADS / BK);
      const int k = k0 + ak;
      int v = 0;
      if (m < P::MG && k < K) {
        const int oc = g * P::MG + m;
        v = (int)wg[m * K + k] - (P::w_zp_kind == 0 ? 0 : (int)w_zp[P::w_zp_kind == 1 ? 0 : oc]);
      }
      As[ak][am0 + i * (THREADS / BK)] = v;
    }
#pragma unroll
    for (int i = 0; i < B_LOADS; ++i)
      Bs[bk0 + i * (THREADS / BN)][bn] =
          intIm2colLoad<P>(xg, k0 + bk0 + i * (THREADS / BN), n_ok, img, origin, pad_value, x_sub);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      int a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[kk][ty + i * (BM / TM)];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[kk][tx + j * (BN / TN)];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += (unsigned)(a[i] * b[j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int m = m0 + ty + i * (BM / TM);
    if (m >= P::MG) continue;
    const int oc = g * P::MG + m;
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int nn = n0 + tx + j * (BN / TN);
      if (nn >= NTOT) continue;
      const int im = nn / OVOL;
      epi.store(acc[i][j], oc, (im * P::M + oc) * OVOL + (nn - im * OVOL));
    }
  }
}

// ConvInteger and MatMulInteger: the sum itself.
struct Int32Epilogue {
  int* __restrict__ y;
  __device__ __forceinline__ void store(unsigned sum, int, int idx) const { y[idx] = (int)sum; }
};

// QLinearConv: (sum + bias[oc]) * (x_scale * w_scale[oc] / y_scale), quantised.
template <class P, class TY>
struct QLinearConvEpilogue {
  const float* __restrict__ x_scale;
  const float* __restrict__ w_scale;
  const float* __restrict__ y_scale;
  const TY* __restrict__ y_zp;
  const int* __restrict__ bias;
  TY* __restrict__ y;
  __device__ __forceinline__ void store(unsigned sum, int oc, int idx) const {
    const float scale = x_scale[0] * w_scale[P::w_scale_per_channel ? oc : 0] / y_scale[0];
    const int s = (int)sum + (P::has_bias ? bias[oc] : 0);
    y[idx] = quantizeTo<TY>((float)s * scale, P::has_y_zp ? (int)y_zp[0] : 0, P::q_lo, P::q_hi);
  }
};

// vdla.QConv (vdla/runtime/qconv_attributes.h): integer requantisation with
// 32-bit wrap-around, or the exact 64-bit product of the wide form.
template <class P>
struct QConvEpilogue {
  const int* __restrict__ bias1;
  const int* __restrict__ mult;
  const int* __restrict__ bias2;
  const signed char* __restrict__ r;
  const int* __restrict__ residual_mult;
  signed char* __restrict__ y;
  __device__ __forceinline__ void store(unsigned sum, int oc, int idx) const {
    const unsigned in_r = P::has_res ? (unsigned)(int)r[idx] * (unsigned)residual_mult[oc] : 0u;
    int v;
    if (P::float_requant) {
      // onnxruntime's form: fl(fl(acc + bias1) * scale) rounded half to even
      // (__fmul_rn: no contraction into a fused multiply-add).
      const float p = __fmul_rn(__int2float_rn((int)(sum + (unsigned)bias1[oc])), __int_as_float(mult[oc]));
      v = __float2int_rn(fminf(fmaxf(p, -65536.0f), 65536.0f)) + P::y_zero_point;
      v = v < -128 ? -128 : (v > 127 ? 127 : v);
    } else if (P::wide_product) {
      // The residual in accumulator units, with residual_shift fractional bits.
      unsigned wide_r = in_r;
      if (P::has_res && P::residual_shift > 0) {
        const long long p = (long long)(int)r[idx] * residual_mult[oc];
        wide_r = (unsigned)(unsigned long long)((p + (1LL << (P::residual_shift - 1))) >> P::residual_shift);
      }
      const int t = roundingShiftRight((int)(sum + wide_r + (unsigned)bias1[oc]), P::shift1);
      const long long prod = (long long)t * mult[oc];
      const long long rounded = P::shift2 == 0 ? prod : (prod + (1LL << (P::shift2 - 1))) >> P::shift2;
      v = (int)(unsigned)(unsigned long long)rounded;
    } else {
      const int t = roundingShiftRight((int)(sum + (unsigned)bias1[oc]), P::shift1);
      const unsigned u = (unsigned)t * (unsigned)mult[oc] + (unsigned)bias2[oc] + in_r;
      v = roundingShiftRight((int)u, P::shift2);
    }
    v = v < P::clip_lo ? P::clip_lo : v;
    v = v > P::clip_hi ? P::clip_hi : v;
    y[idx] = (signed char)v;
  }
};

// Batched integer matrix product with numpy broadcasting of the batch
// dimensions, one output element per thread: sum_k (A[m][k] - a_zp) *
// (B[k][n] - b_zp), a_zp per tensor or per row, b_zp per tensor or per column.
// P: total, M, N, K, batch_rank, batch_dims[], a_bstr[], b_bstr[],
// a_zp_kind / b_zp_kind (0 none, 1 per tensor, 2 per row / column).
template <class P, class TA, class TB>
__device__ __forceinline__ unsigned intMatMulSum(int i, const TA* __restrict__ a, const TA* __restrict__ a_zp,
                                                 const TB* __restrict__ b, const TB* __restrict__ b_zp) {
  const int col = i % P::N;
  const int row = (i / P::N) % P::M;
  int batch = i / (P::N * P::M);
  int ao = 0, bo = 0;
  for (int d = P::batch_rank - 1; d >= 0; --d) {
    const int c = batch % P::batch_dims[d];
    batch /= P::batch_dims[d];
    ao += c * P::a_bstr[d];
    bo += c * P::b_bstr[d];
  }
  const int az = P::a_zp_kind == 0 ? 0 : (int)a_zp[P::a_zp_kind == 1 ? 0 : row];
  const int bz = P::b_zp_kind == 0 ? 0 : (int)b_zp[P::b_zp_kind == 1 ? 0 : col];
  const TA* __restrict__ ar = a + ao + row * P::a_row_stride;
  const TB* __restrict__ bc = b + bo + col * P::b_col_stride;
  unsigned sum = 0u;
  for (int k = 0; k < P::K; ++k)
    sum += (unsigned)(((int)ar[k * P::a_k_stride] - az) * ((int)bc[k * P::b_k_stride] - bz));
  return sum;
}

}  // namespace vdla
