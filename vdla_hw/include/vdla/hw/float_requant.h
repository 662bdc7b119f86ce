// FREQ, the ALU op of the `float_requant` extension: the requantisation that
// onnxruntime's integer convolutions (QLinearConv, QGemm) compute in float,
// reproduced bit for bit with integers. For an accumulator a, a float32
// scale s (the operand's bit pattern) and a zero point z (the immediate):
//
//   y = clamp(round_half_even(fl(fl(a) * s)) + z, -128, 127)
//
// where fl rounds to binary32 (24 significant bits, ties to even). Every
// exponent field of s is read as a normal number, (2^23 + F) * 2^(E - 150),
// and the product is rounded to 24 bits without an exponent range, so the
// result is defined for every bit pattern; for a normal s (E in 1..254) it is
// exactly the IEEE computation, since an overflow saturates either way and
// an underflow rounds to zero either way.
//
// The steps, as the RTL lane computes them: a's magnitude normalised to a
// 24-bit mantissa (rounded when |a| >= 2^24), times s's mantissa (a product
// in [2^46, 2^48]), rounded to 24 bits at bit 23 or 24, then shifted to the
// integer point with a second rounding.
#pragma once

#include <cstdint>

namespace vdla::hw {

// v / 2^k rounded half to even, k in [1, 63].
constexpr uint64_t shiftRightRoundEven(uint64_t v, unsigned k) {
  const uint64_t q = v >> k;
  const uint64_t rem = v & ((uint64_t{1} << k) - 1);
  const uint64_t half = uint64_t{1} << (k - 1);
  return q + ((rem > half || (rem == half && (q & 1) != 0)) ? 1 : 0);
}

constexpr int32_t floatRequant(int32_t a, uint32_t scale_bits, int32_t zero_point) {
  const bool negative = (a < 0) != ((scale_bits >> 31) != 0);
  const uint64_t magnitude = a < 0 ? uint64_t(-int64_t(a)) : uint64_t(a);
  int64_t q = 0;  // |round_half_even(fl(fl(a) * s))|, saturated at 2^40
  if (magnitude != 0) {
    int msb = 0;
    while ((magnitude >> (msb + 1)) != 0) ++msb;
    const uint64_t mant_a = msb <= 23 ? magnitude << (23 - msb) : shiftRightRoundEven(magnitude, unsigned(msb - 23));
    const uint64_t mant_s = (uint64_t{1} << 23) | (scale_bits & 0x7fffffu);
    const int exp_s = int((scale_bits >> 23) & 0xffu);
    const uint64_t product = mant_a * mant_s;  // in [2^46, 2^48)
    const int dropped = (product >> 47) != 0 ? 24 : 23;
    const uint64_t mant_p = shiftRightRoundEven(product, unsigned(dropped));  // in [2^23, 2^24]
    // fl(fl(a) * s) = mant_p * 2^point
    const int point = dropped + (msb - 23) + exp_s - 150;
    if (point >= 0)
      q = point > 16 ? int64_t{1} << 40 : int64_t(mant_p << point);
    else
      q = -point > 25 ? 0 : int64_t(shiftRightRoundEven(mant_p, unsigned(-point)));
  }
  const int64_t y = (negative ? -q : q) + zero_point;
  return int32_t(y < -128 ? -128 : (y > 127 ? 127 : y));
}

}  // namespace vdla::hw
