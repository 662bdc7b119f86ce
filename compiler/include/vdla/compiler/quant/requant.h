// Integer requantisation parameters of vdla.QConv (semantics in
// vdla/runtime/qconv_attributes.h): from the real per-channel multipliers of
// a quantised convolution to the shifts and int32 constants of the ALU
// sequence
//   t = rshr(acc + bias1, shift1)
//   u = t * mult + R * residual_mult + bias2
//   y = clamp(rshr(u, shift2), clip_lo, clip_hi)
// that approximates y = clamp(round(M * (acc + bias) + Mr * R + zero_point)).
//
// The accelerator computes in wrapping int32, so the parameters are chosen
// from static worst-case bounds (the largest |acc| any int8 input can give)
// such that no intermediate of the sequence leaves int32 for any input; the
// remaining freedom goes to precision.
#pragma once

#include <cstdint>
#include <vector>

namespace vdla::quant {

// One quantised convolution's requantisation, per output channel o.
struct RequantSpec {
  // M[o] = s_x * s_w[o] / s_y: accumulator units to output units (finite, >= 0).
  std::vector<double> multiplier;
  // The bias in accumulator units (bias / (s_x * s_w[o]), rounded); empty means 0.
  std::vector<int64_t> bias;
  // The largest |acc| that any int8 input can produce (see accumulatorBound).
  std::vector<int64_t> acc_bound;
  // s_r / s_y for a fused residual R (int8, zero point 0); empty means no residual.
  std::vector<double> residual_multiplier;
  int32_t output_zero_point = 0;
  // The output range; narrower than [-128, 127] for a fused Relu or Clip.
  int32_t clip_lo = -128;
  int32_t clip_hi = 127;
  // May the result use vdla.QConv's wide_product form (64-bit product, no
  // shift1, a residual and the output zero point added in accumulator units)?
  bool allow_wide_product = false;
};

struct RequantParams {
  int shift1 = 0;
  int shift2 = 0;
  std::vector<int32_t> bias1, mult, bias2;
  std::vector<int32_t> residual_mult;  // empty without a residual
  int32_t clip_lo = -128;
  int32_t clip_hi = 127;
  bool wide_product = false;  // shift1 = 0, bias2 = 0, shift2 up to 62, |mult| < 2^25,
                              // residual_mult in accumulator units
  int residual_shift = 0;     // wide form: residual_mult's fractional bits (|residual_mult| < 2^25)
  // Worst-case distance, in output units, between the integer sequence before
  // its final rounding and the real-valued M * (acc + bias) + Mr * R + zero
  // point, over the inputs whose output does not saturate. The final rounding
  // adds at most 0.5 on top.
  double error_bound = 0;
};

// Chooses shift1, shift2 and the per-channel constants; throws
// std::invalid_argument for inconsistent or invalid input, and
// std::domain_error when no choice keeps every intermediate within int32
// (an accumulator bound above int32, or a multiplier so large that the
// output saturates for almost every input). See requant.cpp for the rule.
RequantParams chooseRequantParams(const RequantSpec& spec);

// The largest |sum_i w[i] * x[i]| over int8 inputs x: positive weights meet
// 127 and negative ones -128 (or the reverse). Padding positions hold an
// int8 value too (x_zero_point), so this bounds every accumulator of a
// convolution whatever its zero point.
int64_t accumulatorBound(const int8_t* weights, int64_t count);

}  // namespace vdla::quant
