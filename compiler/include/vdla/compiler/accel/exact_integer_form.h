// Integer forms of quantised operators that the CPU computes in float
// (onnxruntime's QLinearAdd and QLinearGlobalAveragePool). The accelerator
// has only integers; but the operators' integer inputs take few values, so
// the compiler can run the CPU's own kernel on every one of them and look for
// an integer form that reproduces every output. An operator is offloaded only
// with such a form: its result on the accelerator then equals the CPU's
// whatever the data (add_layer.h, global_pool_layer.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace vdla::accel {

// y = clip((ma*a + mb*b + k + 2^(shift-1)) >> shift, -128, 127), every
// intermediate within int32 for the operand ranges it was found for.
struct IntegerAffineForm {
  int32_t ma = 0, mb = 0, k = 0;
  int shift = 0;
  int32_t apply(int32_t a, int32_t b) const;
};

// One input of the kernel and its output.
struct AffineSample {
  int32_t a = 0, b = 0;
  int32_t y = 0;
};

// A form that gives every sample's output, with |a| <= max_a and |b| <= max_b
// over the samples: searched near the real coefficients (y ~ round(ratio_a*a +
// ratio_b*b + fixed)) at the finest shift whose sums stay inside int32 and a
// few coarser ones. The multipliers are tried outward from the nearest ones
// (up to 4 units away, 256 when max_b is 0 and mb is fixed at 0); for each
// pair the offsets that fit every sample form an interval, computed exactly,
// and the one nearest the real offset is taken. The kernel's own float
// rounding decides the inputs that sit on a rounding boundary, which the
// nearest form can miss. nullopt when no form tried fits.
std::optional<IntegerAffineForm> findExactAffineForm(double ratio_a, double ratio_b, double fixed, int64_t max_a,
                                                     int64_t max_b, const std::vector<AffineSample>& samples);

// y = clip((((a << pre_shift) + c) * m + 2^(shift-1)) >> shift, -128, 127)
// with the product in 64 bits, as MULSHR (and REQ) computes it: for an input
// whose range times a small ratio needs more precision than int32 products
// give (a channel's sum in global pooling). (a << pre_shift) + c stays within
// int32 and m within MULSHR's 26-bit multiplier.
struct ScaledForm {
  int pre_shift = 0;
  int32_t c = 0, m = 0;
  int shift = 0;
  int32_t apply(int32_t a) const;
};

// A form that gives every sample's output (their b is ignored), |a| <=
// max_a: the largest multiplier and pre-shift that fit, multipliers tried
// outward from the nearest (up to 64 units away) at a few shifts, and for
// each the offsets that fit every sample as an exact interval, the one
// nearest the real offset taken. nullopt when no form tried fits or ratio is
// not positive.
std::optional<ScaledForm> findExactScaledForm(double ratio, double fixed, int64_t max_a,
                                              const std::vector<AffineSample>& samples);

}  // namespace vdla::accel
