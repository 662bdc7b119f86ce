// How the requantisation parameters are chosen.
//
// Two forms, both exact about overflow:
//
//  * shift1 = 0, bias1 = 0: u = acc * mult + R * rm + bias2 with
//    mult = round(M * 2^shift2), rm = round(Mr * 2^shift2) and the bias folded
//    into bias2 = round((M * bias + zero_point) * 2^shift2). One shift, one
//    rounding: the cheapest sequence for the ALU and the most precise one
//    when the accumulator bound leaves room for a wide mult.
//
//  * shift1 > 0, bias1 = bias: the accumulator is first brought down to
//    t = rshr(acc + bias, shift1), so that a deep layer (where 128 * sum|w|
//    is near 2^24) can still have a 12-16 bit mult = round(M * 2^(shift1 +
//    shift2)); the price is the rounding of t, worth mult / 2^(shift2 + 1)
//    output units. bias2 = zero_point << shift2 is exact.
//
// For every shift1 in [0, 31] the largest shift2 is taken whose constants fit
// int32 and whose static bound
//   |t| * |mult| + 128 * |rm| + |bias2| <= 2^31 - 1,
// with |t| bounded through the monotone rshr of acc + bias1 over
// [-acc_bound, acc_bound], holds for every channel; then every partial sum of
// u is within int32 too (as is acc + bias1 when shift1 > 0). Each candidate's
// error is the worst-case deviation from the real-valued result over the
// accumulators that do not saturate the output (|M * (acc + bias)| <= 256 +
// 128 * Mr + |zero_point|), from the rounding of mult, rm, bias2 and t.
//
// Precision comes first, cost second: the smallest shift1 whose error is
// within 1/64 of an output unit of the best candidate wins, so shift1 = 0
// whenever the bound allows it without a measurable loss (1/8 for the wide
// form with a residual, below).
//
//  * wide_product (when the spec allows it):
//    y = clamp(wrap32(rshr(t * mult, shift2))) with t = acc + R * rm + bias
//    and the product exact in 64 bits, which the accelerator computes in one
//    MULSHR. No int32 bound limits mult then, only MULSHR's 26-bit field:
//    mult = round(M * 2^shift2) < 2^25 with the largest such shift2 (up to
//    62), and the shifted result must fit int32. A residual joins the
//    accumulator in its units, rm = round(Mr / M): the accelerator loads R
//    into the accumulator and scales it there before the GEMM adds to it,
//    which saves the separate residual buffer and three ALU passes. Its
//    rounding costs up to 64 * |rm - Mr / M| * M output units, small while
//    Mr / M (the residual's scale over the accumulator's) is in the
//    hundreds, as in ResNets. The form is taken whenever its error is within
//    the slack of the best other form, which it nearly always beats without
//    a residual. When Mr / M is small (a few accumulator units, as in
//    ResNet-50's bottlenecks) an integer rm would be coarse, so rm carries
//    residual_shift fractional bits: R * rm is rounded back to accumulator
//    units (one MULSHR on the accelerator, before the GEMM), for an error of
//    at most 128 * |rm / 2^residual_shift - Mr / M| * M plus M / 2. A nonzero output zero point joins the bias in
//    accumulator units, round(zero_point * 2^shift2 / mult): its rounding is worth at most mult / 2^(shift2 + 1) output
//    units, half of what the rounding of t costs the 32-bit form with shift1 = 1.
#include "vdla/compiler/quant/requant.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace vdla::quant {

namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr double kSlack = 1.0 / 64;  // output units of error worth trading for a cheaper sequence
// The same for a residual in the accumulator, which saves more (three ALU
// passes and the residual's accumulator space); its error term is a bound
// at |R| = 128 that shrinks in proportion to |R|.
constexpr double kResidualSlack = 1.0 / 8;

int64_t rshr64(int64_t v, int s) { return s == 0 ? v : (v + (int64_t{1} << (s - 1))) >> s; }

// round(x) when it fits int32 in magnitude, else nothing.
std::optional<int64_t> roundToInt32(double x) {
  if (!(std::fabs(x) <= static_cast<double>(kInt32Max))) return std::nullopt;
  const int64_t r = std::llround(x);
  if (r > kInt32Max || r < -kInt32Max) return std::nullopt;
  return r;
}

struct Candidate {
  RequantParams params;
  int32_t max_mult = 0;
};

// The parameters for (shift1, shift2), or nothing when some channel could overflow.
std::optional<Candidate> tryShifts(const RequantSpec& s, int shift1, int shift2) {
  const size_t n = s.multiplier.size();
  const bool residual = !s.residual_multiplier.empty();
  Candidate c;
  RequantParams& p = c.params;
  p.shift1 = shift1;
  p.shift2 = shift2;
  p.clip_lo = s.clip_lo;
  p.clip_hi = s.clip_hi;
  const double scale_t = std::ldexp(1.0, shift1 + shift2), scale_u = std::ldexp(1.0, shift2);
  const double z = s.output_zero_point;
  for (size_t o = 0; o < n; ++o) {
    const double m = s.multiplier[o], mr = residual ? s.residual_multiplier[o] : 0.0;
    const int64_t bias = s.bias.empty() ? 0 : s.bias[o], a = s.acc_bound[o];
    std::optional<int64_t> mult = roundToInt32(m * scale_t);
    std::optional<int64_t> rm = roundToInt32(mr * scale_u);
    if (!mult || !rm) return std::nullopt;
    int64_t bias1 = 0, t_bound = a;
    std::optional<int64_t> bias2;
    double error = 0;
    // Accumulators beyond this cannot give an unsaturated output.
    const double headroom = m > 0 ? (256.0 + 128.0 * mr + std::fabs(z)) / m : std::numeric_limits<double>::infinity();
    if (shift1 == 0) {
      bias2 = roundToInt32((m * static_cast<double>(bias) + z) * scale_u);
      if (!bias2) return std::nullopt;
      const double useful = std::min(static_cast<double>(a), headroom + std::fabs(static_cast<double>(bias)));
      error += std::fabs(static_cast<double>(*bias2) / scale_u - (m * static_cast<double>(bias) + z));
      error += std::fabs(static_cast<double>(*mult) / scale_t - m) * useful;
    } else {
      if (a + std::llabs(bias) > kInt32Max) return std::nullopt;  // acc + bias1 must fit
      bias1 = bias;
      t_bound = std::max(std::llabs(rshr64(bias - a, shift1)), std::llabs(rshr64(bias + a, shift1)));
      bias2 = roundToInt32(z * scale_u);  // exact: an integer times a power of two
      if (!bias2) return std::nullopt;
      const double useful = std::min(static_cast<double>(a + std::llabs(bias)), headroom);
      error += static_cast<double>(*mult) / std::ldexp(1.0, shift2 + 1);  // rounding of t
      error += std::fabs(static_cast<double>(*mult) / scale_t - m) * useful;
    }
    error += std::fabs(static_cast<double>(*rm) / scale_u - mr) * 128.0;
    // The static bound of u: every partial sum is below it in magnitude.
    if (t_bound * *mult + 128 * *rm + std::llabs(*bias2) > kInt32Max) return std::nullopt;
    p.bias1.push_back(static_cast<int32_t>(bias1));
    p.mult.push_back(static_cast<int32_t>(*mult));
    p.bias2.push_back(static_cast<int32_t>(*bias2));
    if (residual) p.residual_mult.push_back(static_cast<int32_t>(*rm));
    p.error_bound = std::max(p.error_bound, error);
    c.max_mult = std::max(c.max_mult, static_cast<int32_t>(*mult));
  }
  return c;
}

// The wide_product form, or nothing when some channel cannot have it.
std::optional<Candidate> tryWide(const RequantSpec& s) {
  constexpr int64_t kMaxMult = (int64_t{1} << 25) - 1;  // MULSHR's operand field
  const size_t n = s.multiplier.size();
  const bool residual = !s.residual_multiplier.empty();
  // As many fractional bits for rm as its largest channel leaves room for in
  // MULSHR's field (30 are far below any other error term).
  int residual_shift = 0;
  if (residual) {
    double max_ratio = 0;
    for (size_t o = 0; o < n; ++o)
      if (s.multiplier[o] > 0) max_ratio = std::max(max_ratio, s.residual_multiplier[o] / s.multiplier[o]);
    while (residual_shift < 30 && std::ldexp(max_ratio, residual_shift + 1) < static_cast<double>(kMaxMult))
      ++residual_shift;
  }
  for (int shift2 = 62; shift2 >= 0; --shift2) {
    Candidate c;
    RequantParams& p = c.params;
    p.wide_product = true;
    p.residual_shift = residual_shift;
    p.shift1 = 0;
    p.shift2 = shift2;
    p.clip_lo = s.clip_lo;
    p.clip_hi = s.clip_hi;
    const double scale = std::ldexp(1.0, shift2);
    bool ok = true;
    for (size_t o = 0; o < n && ok; ++o) {
      const double m = s.multiplier[o];
      const int64_t bias = s.bias.empty() ? 0 : s.bias[o], a = s.acc_bound[o];
      const double mult_real = m * scale;
      if (!(mult_real < static_cast<double>(kMaxMult))) {
        ok = false;
        break;
      }
      // The residual in accumulator units (no residual: 0), with the
      // fractional bits the layer's residual shift gives it.
      const double rm_real = residual ? (m > 0 ? s.residual_multiplier[o] / m : 0.0) : 0.0;
      if (!(std::fabs(rm_real) < static_cast<double>(kInt32Max) / 128)) {
        ok = false;
        break;
      }
      const double rm_scaled = std::ldexp(rm_real, residual_shift);
      if (residual_shift > 0 && !(std::fabs(rm_scaled) < static_cast<double>(kMaxMult))) {
        ok = false;
        break;
      }
      const int64_t rm = std::llround(rm_scaled);
      const int64_t mult = std::llround(mult_real);
      // The zero point in accumulator units; a channel with mult 0 cannot carry it.
      const double z = s.output_zero_point;
      if (z != 0 && mult == 0) {
        ok = false;
        break;
      }
      const double z_acc = z != 0 ? z * scale / static_cast<double>(mult) : 0.0;
      if (!(std::fabs(z_acc) < static_cast<double>(kInt32Max))) {
        ok = false;
        break;
      }
      const int64_t z_rounded = std::llround(z_acc), bias_z = bias + z_rounded;
      const int64_t r_bound =
          residual_shift > 0 ? ((128 * std::llabs(rm)) >> residual_shift) + 1 : 128 * std::llabs(rm);
      const int64_t t_bound = a + r_bound + std::llabs(bias_z);
      // t = acc + R * rm + bias must not wrap, and neither may the shifted product.
      if (t_bound > kInt32Max || mult > kMaxMult || rshr64(t_bound * mult, shift2) > kInt32Max) {
        ok = false;
        break;
      }
      const double mr = residual ? s.residual_multiplier[o] : 0.0;
      const double headroom = m > 0 ? (256.0 + 128.0 * mr + std::fabs(double(s.output_zero_point))) / m
                                    : std::numeric_limits<double>::infinity();
      const double useful = std::min(static_cast<double>(t_bound), headroom + std::fabs(static_cast<double>(bias_z)));
      p.bias1.push_back(static_cast<int32_t>(bias_z));
      p.mult.push_back(static_cast<int32_t>(mult));
      p.bias2.push_back(0);
      if (residual) p.residual_mult.push_back(static_cast<int32_t>(rm));
      const double rm_error = std::fabs(std::ldexp(static_cast<double>(rm), -residual_shift) - rm_real) * m * 128.0 +
                              (residual_shift > 0 ? 0.5 * m : 0.0);  // rounding R * rm back to accumulator units
      const double error = std::fabs(static_cast<double>(mult) / scale - m) * useful + rm_error +
                           std::fabs(static_cast<double>(z_rounded) - z_acc) * static_cast<double>(mult) / scale;
      p.error_bound = std::max(p.error_bound, error);
      c.max_mult = std::max(c.max_mult, static_cast<int32_t>(mult));
    }
    if (ok) return c;
  }
  return std::nullopt;
}

void validate(const RequantSpec& s) {
  const size_t n = s.multiplier.size();
  if (n == 0) throw std::invalid_argument("requantisation needs at least one channel");
  if (s.acc_bound.size() != n || (!s.bias.empty() && s.bias.size() != n) ||
      (!s.residual_multiplier.empty() && s.residual_multiplier.size() != n))
    throw std::invalid_argument("requantisation: bias, acc_bound and residual_multiplier need one value per channel (" +
                                std::to_string(n) + ")");
  for (size_t o = 0; o < n; ++o) {
    const double m = s.multiplier[o], mr = s.residual_multiplier.empty() ? 0.0 : s.residual_multiplier[o];
    if (!std::isfinite(m) || m < 0 || !std::isfinite(mr) || mr < 0)
      throw std::invalid_argument("requantisation: channel " + std::to_string(o) +
                                  " has a negative or non-finite multiplier");
    if (s.acc_bound[o] < 0) throw std::invalid_argument("requantisation: negative accumulator bound");
    if (s.acc_bound[o] > kInt32Max)
      throw std::domain_error("channel " + std::to_string(o) + ": the accumulator can reach " +
                              std::to_string(s.acc_bound[o]) + ", beyond int32");
  }
  if (s.output_zero_point < -128 || s.output_zero_point > 127 || s.clip_lo < -128 || s.clip_hi > 127 ||
      s.clip_lo > s.clip_hi)
    throw std::invalid_argument("requantisation: zero point and clip range must lie in [-128, 127]");
}

}  // namespace

RequantParams chooseRequantParams(const RequantSpec& spec) {
  validate(spec);
  std::vector<Candidate> candidates;  // index: shift1, when feasible
  std::vector<int> shift1s;
  for (int shift1 = 0; shift1 <= 31; ++shift1)
    for (int shift2 = 31; shift2 >= 0; --shift2)
      if (std::optional<Candidate> c = tryShifts(spec, shift1, shift2)) {
        candidates.push_back(std::move(*c));
        break;  // the largest feasible shift2 is the most precise for this shift1
      }
  if (candidates.empty())
    throw std::domain_error(
        "no shifts keep the requantisation within int32: the multipliers are too large for the accumulator bounds "
        "(the output would saturate for almost every input)");
  double best = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) best = std::min(best, c.params.error_bound);
  if (spec.allow_wide_product)
    if (std::optional<Candidate> wide = tryWide(spec);
        wide && wide->params.error_bound <= best + (spec.residual_multiplier.empty() ? kSlack : kResidualSlack))
      return wide->params;
  for (const Candidate& c : candidates)  // in increasing shift1
    if (c.params.error_bound <= best + kSlack) return c.params;
  return candidates.front().params;  // unreachable: the best candidate qualifies
}

int64_t accumulatorBound(const int8_t* weights, int64_t count) {
  int64_t positive = 0, negative = 0;
  for (int64_t i = 0; i < count; ++i) (weights[i] > 0 ? positive : negative) += std::abs(int64_t{weights[i]});
  return std::max(127 * positive + 128 * negative, 128 * positive + 127 * negative);
}

}  // namespace vdla::quant
