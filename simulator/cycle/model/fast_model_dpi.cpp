// Datapath arithmetic the fast cycle models call instead of evaluating it as
// Verilated RTL (DPI-C; docs/hardware.md, "Cycle-accurate simulator"): a
// GEMM cycle's int8 matrix-vector product (vdla_gemm.sv,
// VDLA_GEMM_SPLIT_MODES) and a requantising GEMM's REQ per ALU lane
// (vdla_compute.sv, VDLA_FAST_REQ_LANES). Each is called where the RTL
// computes the same value, so the registers, pipeline and cycles stay the
// RTL's; DWGEMM, the ALU instructions and all control are still Verilated.
// The checked model simulates the RTL's own forms; both are held to fsim by
// the cycle device's tests.
#include <emmintrin.h>
#include <svdpi.h>

#include <cstdint>
#include <cstring>

namespace {

// Sign-extended halves of 16 int8 lanes.
inline void widen(__m128i v, __m128i& lo, __m128i& hi) {
  lo = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
  hi = _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8);
}

// Four int32 partial sums of row `w` (K int8) against x (K/8 widened vectors).
template <int K>
inline __m128i rowPartials(const __m128i* xw, const int8_t* w) {
  __m128i acc = _mm_setzero_si128();
  for (int k = 0; k < K; k += 16) {
    __m128i lo, hi;
    widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w + k)), lo, hi);
    acc = _mm_add_epi32(acc, _mm_add_epi32(_mm_madd_epi16(xw[k / 8], lo), _mm_madd_epi16(xw[k / 8 + 1], hi)));
  }
  return acc;
}

// K a multiple of 16 and block_out of 4 (every shipped array): pmaddwd on
// sign-extended halves, four outputs' partial sums reduced together.
template <int K>
void dotVector(int batch, int block_out, const int8_t* x, const int8_t* w, int32_t* y) {
  for (int b = 0; b < batch; ++b) {
    __m128i xw[K / 8];
    for (int k = 0; k < K; k += 16)
      widen(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + b * K + k)), xw[k / 8], xw[k / 8 + 1]);
    for (int o = 0; o < block_out; o += 4) {
      const __m128i s0 = rowPartials<K>(xw, w + (o + 0) * K), s1 = rowPartials<K>(xw, w + (o + 1) * K);
      const __m128i s2 = rowPartials<K>(xw, w + (o + 2) * K), s3 = rowPartials<K>(xw, w + (o + 3) * K);
      // Transpose-add: lane i of the result is the sum of s_i's lanes.
      const __m128i t01 = _mm_add_epi32(_mm_unpacklo_epi32(s0, s1), _mm_unpackhi_epi32(s0, s1));
      const __m128i t23 = _mm_add_epi32(_mm_unpacklo_epi32(s2, s3), _mm_unpackhi_epi32(s2, s3));
      const __m128i sum = _mm_add_epi32(_mm_unpacklo_epi64(t01, t23), _mm_unpackhi_epi64(t01, t23));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(y + b * block_out + o), sum);
    }
  }
}

void dotAny(int batch, int block_in, int block_out, const int8_t* x, const int8_t* w, int32_t* y) {
  for (int b = 0; b < batch; ++b)
    for (int o = 0; o < block_out; ++o) {
      int32_t acc = 0;
      for (int k = 0; k < block_in; ++k) acc += int32_t(x[b * block_in + k]) * int32_t(w[o * block_in + k]);
      y[b * block_out + o] = acc;
    }
}

}  // namespace

// [b][o] = sum over k of inp[b][k] * wgt[o][k], exact in int32 as the RTL's
// adder trees are.
extern "C" void vdla_gemm_dot(int batch, int block_in, int block_out, const svBitVecVal* inp, const svBitVecVal* wgt,
                              svBitVecVal* sum) {
  // Verilator's wide vectors are little-endian arrays of 32-bit words: byte
  // j of the array is bits [8j+7:8j], the RTL's element j.
  const int8_t* x = reinterpret_cast<const int8_t*>(inp);
  const int8_t* w = reinterpret_cast<const int8_t*>(wgt);
  int32_t* y = reinterpret_cast<int32_t*>(sum);
  if (block_out % 4 == 0) {
    switch (block_in) {
      case 16: return dotVector<16>(batch, block_out, x, w, y);
      case 32: return dotVector<32>(batch, block_out, x, w, y);
      case 64: return dotVector<64>(batch, block_out, x, w, y);
      default: break;
    }
  }
  dotAny(batch, block_in, block_out, x, w, y);
}

// A requantising GEMM's REQ in one lane (vdla_compute.sv, VDLA_FAST_REQ_LANES):
// MULSHR by b (multiplier b >> 6, shift b[5:0], rounding half up in 64
// bits, the low 32 bits kept), then CLIP to the int8 bounds in c[7:0] and
// c[15:8]; alu_lane's REQ, which the checked model simulates.
extern "C" int vdla_req_lane(int a, int b, int c) {
  const int64_t m = b >> 6;
  const int s = b & 63;
  const int64_t p = int64_t(a) * m + (s > 0 ? int64_t(1) << (s - 1) : 0);
  const int32_t y = int32_t(uint32_t(uint64_t(p >> s)));
  const int32_t lo = int8_t(c & 0xff), hi = int8_t((c >> 8) & 0xff);
  const int32_t raised = y < lo ? lo : y;  // (bounds with lo > hi give hi, as in the RTL)
  return raised > hi ? hi : raised;
}
