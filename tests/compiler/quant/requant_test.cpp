// chooseRequantParams: over random channels, no intermediate of the vdla.QConv
// sequence leaves int32 for any accumulator within the bound and any int8
// residual (checked at the extremes, where the monotone sequence takes its
// largest magnitudes, and at random points), and the integer result stays
// within the reported error of the real-valued requantisation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "vdla/compiler/quant/requant.h"

namespace vdla::quant {
namespace {

constexpr int64_t kMin = INT32_MIN, kMax = INT32_MAX;

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t rshr(int64_t v, int s) { return s == 0 ? v : floorDiv(v + (int64_t{1} << (s - 1)), int64_t{1} << s); }
bool fits(int64_t v) { return v >= kMin && v <= kMax; }

// Runs the ALU sequence in 64 bits for one channel, failing the test if any
// intermediate (in either order of the two additions) leaves int32. Returns
// the value before the final clamp.
int64_t sequence(const RequantParams& p, size_t o, int64_t acc, int64_t r, bool* overflow) {
  auto check = [&](int64_t v) {
    if (!fits(v)) *overflow = true;
    return v;
  };
  check(acc);
  const int64_t t = rshr(check(acc + p.bias1[o]), p.shift1);
  const int64_t product = check(t * p.mult[o]);
  const int64_t residual = p.residual_mult.empty() ? 0 : check(r * p.residual_mult[o]);
  check(product + p.bias2[o]);  // the order the reference kernel adds in
  const int64_t u = check(check(product + residual) + p.bias2[o]);
  return rshr(u, p.shift2);
}

int32_t clampTo(int64_t v, const RequantParams& p) {
  return static_cast<int32_t>(std::min<int64_t>(std::max<int64_t>(v, p.clip_lo), p.clip_hi));
}

struct RandomLayer {
  RequantSpec spec;
  std::vector<std::vector<int8_t>> weights;
};

// A layer as quantisation produces them: weights with one channel reaching
// +-127, multipliers across the range real networks have, biases of the
// order of the accumulators, optional residual and zero point.
RandomLayer randomLayer(std::mt19937& rng) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  RandomLayer l;
  const int64_t channels = pick(1, 48);
  const int64_t k = pick(0, 3) == 0 ? pick(1, 27) : pick(1, 4608);
  const bool residual = pick(0, 1) == 1;
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int64_t o = 0; o < channels; ++o) {
    std::vector<double> real(static_cast<size_t>(k));
    double max_abs = 0;
    for (double& v : real) max_abs = std::max(max_abs, std::fabs(v = normal(rng)));
    std::vector<int8_t> w;
    for (double v : real) w.push_back(static_cast<int8_t>(std::lround(v / max_abs * 127)));
    l.spec.acc_bound.push_back(accumulatorBound(w.data(), k));
    l.weights.push_back(std::move(w));
    // The output scale covers a few standard deviations of acc: M * sqrt(k) * 127 * 40 ~ 127.
    const double typical = std::sqrt(static_cast<double>(k)) * 40.0 * 60.0;
    l.spec.multiplier.push_back(std::pow(10.0, uniform(-0.7, 0.7)) * 40.0 / typical);
    l.spec.bias.push_back(pick(-2, 2) * static_cast<int64_t>(typical * uniform(0, 1)));
    if (residual) l.spec.residual_multiplier.push_back(std::pow(10.0, uniform(-1.0, 0.5)));
  }
  l.spec.output_zero_point = static_cast<int32_t>(pick(0, 1) ? pick(-20, 20) : 0);
  const int64_t kind = pick(0, 2);  // none, Relu, Clip
  l.spec.clip_lo = kind == 0 ? -128 : static_cast<int32_t>(l.spec.output_zero_point);
  l.spec.clip_hi = kind == 2 ? static_cast<int32_t>(pick(l.spec.clip_lo, 127)) : 127;
  return l;
}

TEST(Requant, AccumulatorBoundIsTheLargestReachableSum) {
  // Brute force over every corner of [-128, 127]^k (the sum is linear, so its
  // extremes are at corners).
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const int k = 1 + trial % 10;
    std::vector<int8_t> w(static_cast<size_t>(k));
    for (int8_t& v : w) v = static_cast<int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
    int64_t best = 0;
    for (int mask = 0; mask < (1 << k); ++mask) {
      int64_t sum = 0;
      for (int i = 0; i < k; ++i) sum += int64_t{w[i]} * ((mask >> i) & 1 ? 127 : -128);
      best = std::max<int64_t>(best, std::llabs(sum));
    }
    EXPECT_EQ(accumulatorBound(w.data(), k), best);
  }
}

TEST(Requant, NoIntermediateOverflowsAndResultsStayWithinTheErrorBound) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int shift1_zero = 0, shift1_positive = 0;
  int64_t exact = 0, total = 0;
  for (int trial = 0; trial < 400; ++trial) {
    RandomLayer l = randomLayer(rng);
    const RequantSpec& s = l.spec;
    const RequantParams p = chooseRequantParams(s);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": shift1 " + std::to_string(p.shift1) + " shift2 " +
                 std::to_string(p.shift2) + " channels " + std::to_string(s.multiplier.size()));
    ASSERT_EQ(p.mult.size(), s.multiplier.size());
    ASSERT_EQ(p.residual_mult.size(), s.residual_multiplier.size());
    ASSERT_GE(p.shift1, 0);
    ASSERT_LE(p.shift1, 31);
    ASSERT_GE(p.shift2, 0);
    ASSERT_LE(p.shift2, 31);
    (p.shift1 == 0 ? shift1_zero : shift1_positive)++;
    if (p.shift1 == 0) {
      for (int32_t b : p.bias1) EXPECT_EQ(b, 0);  // the bias lives in bias2
    }
    // Precision: the largest mult has at least 12 significant bits.
    EXPECT_GE(*std::max_element(p.mult.begin(), p.mult.end()), 1 << 11);
    // Worst case over channels sharing the shifts (the typical error is far smaller).
    EXPECT_LT(p.error_bound, 0.3);
    for (size_t o = 0; o < s.multiplier.size(); ++o) {
      const int64_t a = s.acc_bound[o];
      bool overflow = false;
      for (int64_t acc : {-a, a, int64_t{0}})
        for (int64_t r : {int64_t{-128}, int64_t{127}, int64_t{0}}) sequence(p, o, acc, r, &overflow);
      ASSERT_FALSE(overflow) << "channel " << o << " overflows at the extremes";
      // Random points whose output need not saturate: compare with the real value.
      const double m = s.multiplier[o], mr = s.residual_multiplier.empty() ? 0.0 : s.residual_multiplier[o];
      const double b = static_cast<double>(s.bias[o]);
      const double useful = std::min<double>(a, 300.0 / m);
      for (int i = 0; i < 200; ++i) {
        const int64_t acc = static_cast<int64_t>((2 * unit(rng) - 1) * useful);
        const int64_t r = p.residual_mult.empty() ? 0 : static_cast<int64_t>(unit(rng) * 255) - 128;
        const int64_t before = sequence(p, o, acc, r, &overflow);
        ASSERT_FALSE(overflow);
        const double real = m * (static_cast<double>(acc) + b) + mr * static_cast<double>(r) + s.output_zero_point;
        // Where the output can be unsaturated the integer sequence is within
        // error_bound of the real value before its final rounding, so within
        // error_bound + 0.5 after it.
        const double headroom = 256 + 128 * mr + std::abs(s.output_zero_point);
        if (std::fabs(m * (static_cast<double>(acc) + b)) <= headroom) {
          EXPECT_LE(std::fabs(static_cast<double>(before) - real), p.error_bound + 0.5 + 1e-9)
              << "acc " << acc << " r " << r;
        }
        const int32_t want = clampTo(std::llround(real), p), got = clampTo(before, p);
        EXPECT_LE(std::abs(got - want), 1);
        exact += got == want;
        ++total;
      }
    }
  }
  // Both forms are exercised, and almost every output is the correctly rounded one.
  EXPECT_GT(shift1_zero, 20);
  EXPECT_GT(shift1_positive, 20);
  EXPECT_GT(static_cast<double>(exact) / static_cast<double>(total), 0.97) << exact << " of " << total;
}

TEST(Requant, SmallLayersUseOneShiftWithTheBiasFolded) {
  // A depthwise 3x3: |acc| <= 128 * 127 * 9, far from 2^31: shift1 = 0 and a wide mult.
  RequantSpec s;
  s.multiplier = {0.0021, 0.0007};
  s.acc_bound = {128 * 127 * 9, 128 * 127 * 9};
  s.bias = {-5000, 1234};
  s.clip_lo = 0;
  const RequantParams p = chooseRequantParams(s);
  EXPECT_EQ(p.shift1, 0);
  EXPECT_EQ(p.bias1, (std::vector<int32_t>{0, 0}));
  // mult = round(M * 2^shift2), bias2 = round(M * bias * 2^shift2).
  for (size_t o = 0; o < 2; ++o) {
    EXPECT_EQ(p.mult[o], std::llround(std::ldexp(s.multiplier[o], p.shift2)));
    EXPECT_EQ(p.bias2[o], std::llround(std::ldexp(s.multiplier[o] * static_cast<double>(s.bias[o]), p.shift2)));
  }
  // The bound 128 * 127 * 9 * mult <= 2^31 allows mult up to 14678: 0.0021 * 2^22 = 8808.
  EXPECT_EQ(p.shift2, 22);
  EXPECT_GE(p.mult[0], 1 << 13);
  EXPECT_EQ(p.clip_lo, 0);
  EXPECT_EQ(p.clip_hi, 127);
}

TEST(Requant, DeepLayersShiftTheAccumulatorFirst) {
  // ResNet layer4: K = 4608, |acc| bound near 2^24, M near 1e-4. With shift1 = 0
  // mult could have only 7 bits; a first shift buys 12 or more.
  RequantSpec s;
  s.multiplier = {1.1e-4, 0.7e-4, 2.3e-4};
  s.acc_bound = {int64_t{1} << 24, 15000000, 9000000};
  s.bias = {300000, -20000, 0};
  s.residual_multiplier = {0.8, 0.8, 0.8};
  const RequantParams p = chooseRequantParams(s);
  EXPECT_GT(p.shift1, 0);
  EXPECT_EQ(p.bias1, (std::vector<int32_t>{300000, -20000, 0}));
  EXPECT_EQ(p.bias2, (std::vector<int32_t>{0, 0, 0}));  // zero point 0 << shift2
  EXPECT_GE(*std::max_element(p.mult.begin(), p.mult.end()), 1 << 11);
  EXPECT_LT(p.error_bound, 0.05);
}

// The wide_product form: y = clamp(wrap32(rshr(t * mult, shift2))), the
// product exact in 64 bits, restated here independently.
// A residual r joins the accumulator first, in its units: r * rm rounded by
// the residual shift.
int64_t wideResidual(const RequantParams& p, size_t o, int64_t r) {
  if (p.residual_mult.empty()) return 0;
  const int64_t prod = r * p.residual_mult[o];
  return p.residual_shift == 0 ? prod : (prod + (int64_t{1} << (p.residual_shift - 1))) >> p.residual_shift;
}

int64_t wideSequence(const RequantParams& p, size_t o, int64_t acc, int64_t r = 0) {
  const int64_t t = acc + wideResidual(p, o, r) + p.bias1[o];
  const int64_t prod = t * p.mult[o];
  return p.shift2 == 0 ? prod : (prod + (int64_t{1} << (p.shift2 - 1))) >> p.shift2;
}

TEST(Requant, WideProductNeedsNoFirstShiftAndIsMorePrecise) {
  // The deep layer above without its residual: the classic forms need a first shift.
  RequantSpec s;
  s.multiplier = {1.1e-4, 0.7e-4, 2.3e-4};
  s.acc_bound = {int64_t{1} << 24, 15000000, 9000000};
  s.bias = {300000, -20000, 0};
  const RequantParams classic = chooseRequantParams(s);
  ASSERT_FALSE(classic.wide_product);
  ASSERT_GT(classic.shift1, 0);
  s.allow_wide_product = true;
  const RequantParams p = chooseRequantParams(s);
  ASSERT_TRUE(p.wide_product);
  EXPECT_EQ(p.shift1, 0);
  EXPECT_EQ(p.bias1, (std::vector<int32_t>{300000, -20000, 0}));
  EXPECT_EQ(p.bias2, (std::vector<int32_t>{0, 0, 0}));
  EXPECT_LE(p.shift2, 62);
  // The multiplier fills MULSHR's 26-bit field: 2.3e-4 * 2^shift2 just below 2^25.
  EXPECT_LT(*std::max_element(p.mult.begin(), p.mult.end()), 1 << 25);
  EXPECT_GE(*std::max_element(p.mult.begin(), p.mult.end()), 1 << 24);
  EXPECT_LT(p.error_bound, classic.error_bound);
  // Against the real value at the extremes and in between: within the bound
  // before the final rounding, and the shifted result fits int32.
  std::mt19937 rng(3);
  for (size_t o = 0; o < 3; ++o)
    for (int i = 0; i < 2000; ++i) {
      const int64_t a = s.acc_bound[o];
      const int64_t acc = i == 0 ? a : i == 1 ? -a : std::uniform_int_distribution<int64_t>(-a, a)(rng);
      const int64_t y = wideSequence(p, o, acc);
      ASSERT_LE(std::llabs(y), int64_t{INT32_MAX});
      const double real = s.multiplier[o] * static_cast<double>(acc + s.bias[o]);
      if (std::fabs(real) <= 256) {
        EXPECT_LE(std::fabs(static_cast<double>(y) - real), p.error_bound + 0.5 + 1e-9) << "acc " << acc;
      }
    }
}

// A nonzero output zero point joins the bias in accumulator units; the
// result stays within the error bound of the real-valued requantisation.
TEST(Requant, WideProductCarriesTheZeroPointInTheBias) {
  RequantSpec s;
  s.multiplier = {1e-3, 7.3e-3, 2.1e-4};
  s.acc_bound = {1000000, 40000, 3000000};
  s.bias = {10, -523, 91};
  s.allow_wide_product = true;
  for (int32_t zp : {3, -128, 127, -7}) {
    SCOPED_TRACE(zp);
    s.output_zero_point = zp;
    const RequantParams p = chooseRequantParams(s);
    ASSERT_TRUE(p.wide_product);
    EXPECT_LT(p.error_bound, 0.01);
    for (size_t o = 0; o < s.multiplier.size(); ++o) {
      const double z_acc = zp * std::ldexp(1.0, p.shift2) / p.mult[o];
      EXPECT_EQ(p.bias1[o], s.bias[o] + std::llround(z_acc)) << "channel " << o;
      EXPECT_EQ(p.bias2[o], 0);
      for (int64_t acc = -s.acc_bound[o]; acc <= s.acc_bound[o]; acc += s.acc_bound[o] / 997 + 1) {
        const double real = s.multiplier[o] * static_cast<double>(acc + s.bias[o]) + zp;
        if (std::fabs(real) > 200) continue;
        const int64_t y = wideSequence(p, o, acc);
        EXPECT_LE(std::fabs(static_cast<double>(y) - real), p.error_bound + 0.5 + 1e-9) << "acc " << acc;
      }
    }
  }
  s.output_zero_point = 3;
  s.allow_wide_product = false;
  EXPECT_FALSE(chooseRequantParams(s).wide_product);
}

TEST(Requant, WideProductCarriesTheResidualInAccumulatorUnits) {
  // A ResNet block's second convolution: the residual's scale is hundreds of
  // accumulator units; rm carries as many fractional bits as MULSHR's field
  // leaves room for.
  RequantSpec s;
  s.multiplier = {1.1e-4, 0.7e-4, 2.3e-4};
  s.acc_bound = {int64_t{1} << 22, 3000000, 2000000};
  s.bias = {30000, -20000, 0};
  s.residual_multiplier = {0.83, 1.21, 0.5};
  s.allow_wide_product = true;
  const RequantParams p = chooseRequantParams(s);
  ASSERT_TRUE(p.wide_product);
  ASSERT_EQ(p.residual_mult.size(), 3u);
  EXPECT_EQ(p.residual_shift, 10);  // Mr / M up to 17286: 17286 * 2^10 < 2^25 - 1 < 17286 * 2^11
  for (size_t o = 0; o < 3; ++o)
    EXPECT_EQ(p.residual_mult[o],
              std::llround(std::ldexp(s.residual_multiplier[o] / s.multiplier[o], p.residual_shift)))
        << "channel " << o;
  EXPECT_EQ(p.bias1, (std::vector<int32_t>{30000, -20000, 0}));
  std::mt19937 rng(5);
  for (size_t o = 0; o < 3; ++o)
    for (int i = 0; i < 4000; ++i) {
      const int64_t a = s.acc_bound[o];
      const int64_t acc = i % 4 == 0 ? a : i % 4 == 1 ? -a : std::uniform_int_distribution<int64_t>(-a, a)(rng);
      const int64_t r = i < 4 ? (i % 2 ? 127 : -128) : std::uniform_int_distribution<int64_t>(-128, 127)(rng);
      // t = acc + R * rm + bias must not wrap, nor the shifted product.
      ASSERT_LE(std::llabs(acc + wideResidual(p, o, r) + p.bias1[o]), int64_t{INT32_MAX});
      const int64_t y = wideSequence(p, o, acc, r);
      ASSERT_LE(std::llabs(y), int64_t{INT32_MAX});
      const double real =
          s.multiplier[o] * static_cast<double>(acc + s.bias[o]) + s.residual_multiplier[o] * static_cast<double>(r);
      if (std::fabs(real) <= 256) {
        EXPECT_LE(std::fabs(static_cast<double>(y) - real), p.error_bound + 0.5 + 1e-9) << "acc " << acc << " r " << r;
      }
    }
  // A residual only a few accumulator units wide (Mr / M = 2.5) would round
  // badly as an integer (half a unit of it is 64 * M = 25 output units at
  // |R| = 128); with fractional bits only the final rounding of R * rm is
  // left, M / 2.
  s.multiplier = {0.4};
  s.acc_bound = {300};
  s.bias = {0};
  s.residual_multiplier = {1.0};
  const RequantParams coarse = chooseRequantParams(s);
  EXPECT_LT(coarse.error_bound, 0.25);
  if (coarse.wide_product) {
    EXPECT_EQ(coarse.residual_shift, 23);
    for (int64_t acc = -300; acc <= 300; acc += 7)
      for (int64_t r = -128; r <= 127; r += 5) {
        const double real = 0.4 * static_cast<double>(acc) + static_cast<double>(r);
        if (std::fabs(real) <= 200) {
          EXPECT_LE(std::fabs(static_cast<double>(wideSequence(coarse, 0, acc, r)) - real),
                    coarse.error_bound + 0.5 + 1e-9);
        }
      }
  }
}

TEST(Requant, Errors) {
  RequantSpec s;
  s.multiplier = {0.01};
  s.acc_bound = {int64_t{1} << 31};
  EXPECT_THROW(chooseRequantParams(s), std::domain_error);  // the accumulator itself overflows
  s.acc_bound = {1 << 24};
  s.multiplier = {1000.0};  // M * bound far beyond 2^31: saturates for almost every input
  EXPECT_THROW(chooseRequantParams(s), std::domain_error);
  s.multiplier = {-0.5};
  EXPECT_THROW(chooseRequantParams(s), std::invalid_argument);
  s.multiplier = {0.5, 0.5};
  EXPECT_THROW(chooseRequantParams(s), std::invalid_argument);  // one bound for two channels
  s.multiplier = {0.5};
  s.clip_lo = 5;
  s.clip_hi = 4;
  EXPECT_THROW(chooseRequantParams(s), std::invalid_argument);
  s.clip_lo = -128;
  s.clip_hi = 127;
  s.multiplier = {};
  s.acc_bound = {};
  EXPECT_THROW(chooseRequantParams(s), std::invalid_argument);
}

}  // namespace
}  // namespace vdla::quant
