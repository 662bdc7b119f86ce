// FREQ's integer definition against the host's IEEE binary32 arithmetic,
// which is what onnxruntime computes: fl(fl(a) * s), rounded half to even
// (nearbyint in the default rounding mode), plus the zero point, saturated.
#include "vdla/hw/float_requant.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <random>

namespace vdla::hw {
namespace {

float bitsToFloat(uint32_t bits) {
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

uint32_t floatToBits(float f) {
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

int32_t ieee(int32_t a, uint32_t scale_bits, int32_t zero_point) {
  const float product = float(a) * bitsToFloat(scale_bits);  // two binary32 roundings
  const double q = std::nearbyint(std::fmax(-0x1p40, std::fmin(0x1p40, double(product))));
  const int64_t y = int64_t(q) + zero_point;
  return int32_t(y < -128 ? -128 : (y > 127 ? 127 : y));
}

TEST(FloatRequant, MatchesBinary32OnRandomAccumulatorsAndNormalScales) {
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), zp(-128, 127);
  int64_t inside = 0;  // results strictly between the bounds
  for (int i = 0; i < 4000000; ++i) {
    // accumulators of every magnitude, scales from 2^-40 to 2^10
    const int32_t a = any(rng) >> (rng() % 32);
    const uint32_t exponent = 87 + uint32_t(rng() % 51);
    const uint32_t s = (uint32_t(rng() & 1) << 31) | (exponent << 23) | (uint32_t(rng()) & 0x7fffffu);
    const int32_t z = zp(rng);
    const int32_t want = ieee(a, s, z);
    ASSERT_EQ(floatRequant(a, s, z), want) << "a " << a << " scale " << bitsToFloat(s) << " zp " << z;
    inside += want > -128 && want < 127;
  }
  EXPECT_GT(inside, 1000000);  // the draw exercises the rounding, not only saturation
}

// Products that land on or next to a half-integer, where the two roundings
// decide the result: a * s = k + 1/2 exactly (a tie), and one float step either side.
TEST(FloatRequant, MatchesBinary32AtTiesAndBesideThem) {
  std::mt19937_64 rng(7);
  int ties = 0;
  for (int i = 0; i < 200000; ++i) {
    const int32_t a = int32_t(rng() % 2000000) - 1000000;
    if (a == 0) continue;
    const double k = double(int64_t(rng() % 200) - 100) + 0.5;
    const float s = float(k / a);
    for (float t : {std::nextafter(s, 0.0f), s, std::nextafter(s, 1e30f), std::nextafter(s, -1e30f)}) {
      const uint32_t bits = floatToBits(t);
      ASSERT_EQ(floatRequant(a, bits, 0), ieee(a, bits, 0)) << "a " << a << " scale " << t;
      ties += float(a) * t == float(k);
    }
  }
  EXPECT_GT(ties, 1000);
}

TEST(FloatRequant, AccumulatorsAtTheEndsOfInt32) {
  EXPECT_EQ(floatRequant(INT32_MIN, floatToBits(-0x1p-24f), 0), 127);  // 2^7 saturates
  EXPECT_EQ(floatRequant(INT32_MIN, floatToBits(0x1p-25f), 0), -64);
  EXPECT_EQ(floatRequant(INT32_MAX, floatToBits(0x1p-25f), 0), 64);  // fl(2^31 - 1) = 2^31
}

TEST(FloatRequant, ZeroPointAndSaturation) {
  const uint32_t half = floatToBits(0.5f);
  EXPECT_EQ(floatRequant(0, half, -7), -7);
  EXPECT_EQ(floatRequant(0, half, 300), 127);
  EXPECT_EQ(floatRequant(1, half, 0), 0);  // 0.5 -> 0 (even)
  EXPECT_EQ(floatRequant(3, half, 0), 2);  // 1.5 -> 2
  EXPECT_EQ(floatRequant(5, half, 0), 2);  // 2.5 -> 2
  EXPECT_EQ(floatRequant(-5, half, 0), -2);
  EXPECT_EQ(floatRequant(-3, half, 10), 8);
  EXPECT_EQ(floatRequant(1000, half, 0), 127);
  EXPECT_EQ(floatRequant(-1000, half, 0), -128);
  EXPECT_EQ(floatRequant(300, half, -100), 50);                                 // in range only after the zero point
  EXPECT_EQ(floatRequant(INT32_MAX, floatToBits(0x1p100f), -2000000000), 127);  // huge stays huge
}

// Every exponent field has a value: 0 and 255 read as normal numbers, which
// IEEE does not (subnormals, infinities, NaNs); the definition keeps the
// hardware total.
TEST(FloatRequant, ExponentFieldsZeroAndMaxReadAsNormal) {
  EXPECT_EQ(floatRequant(INT32_MAX, 0x00000000u, 5), 5);  // 2^-127 * 2^31: far below 1/2
  EXPECT_EQ(floatRequant(1, 0x7f800000u, 0), 127);        // 2^128, not infinity
  EXPECT_EQ(floatRequant(-1, 0x7fc00000u, 0), -128);      // 1.5 * 2^128, not NaN
  EXPECT_EQ(floatRequant(0, 0x7fc00000u, 3), 3);          // zero times anything
}

}  // namespace
}  // namespace vdla::hw
