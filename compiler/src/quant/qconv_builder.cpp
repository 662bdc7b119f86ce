#include "qconv_builder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace vdla::quant::detail {

namespace {

// Symmetric int8 in [-127, 127] (so that negation is exact), one scale per output channel.
std::vector<double> quantizeWeights(const rt::Tensor& w, rt::Tensor* out) {
  const int64_t channels = w.dim(0), per = w.numElements() / channels;
  const float* src = w.data<float>();
  *out = rt::Tensor(rt::DType::I8, w.shape());
  int8_t* dst = out->data<int8_t>();
  std::vector<double> scales(static_cast<size_t>(channels));
  for (int64_t o = 0; o < channels; ++o) {
    double max_abs = 0;
    for (int64_t i = 0; i < per; ++i) max_abs = std::max(max_abs, std::fabs(static_cast<double>(src[o * per + i])));
    const double scale = max_abs > 0 ? max_abs / 127.0 : 1.0;
    scales[o] = scale;
    for (int64_t i = 0; i < per; ++i) {
      const double q = std::nearbyint(static_cast<double>(src[o * per + i]) / scale);
      dst[o * per + i] = static_cast<int8_t>(std::clamp(q, -127.0, 127.0));
    }
  }
  return scales;
}

// The output range that the fused activation leaves, in int8 units (zero point 0).
void activationClip(const FusedActivation& a, double y_scale, int32_t* lo, int32_t* hi) {
  auto toInt8 = [&](double v) {
    if (std::isinf(v)) return v < 0 ? -128 : 127;
    return static_cast<int32_t>(std::clamp(std::nearbyint(v / y_scale), -128.0, 127.0));
  };
  *lo = -128;
  *hi = 127;
  if (a.kind == FusedActivation::Relu) *lo = 0;
  if (a.kind == FusedActivation::Clip) {
    *lo = toInt8(a.min);
    *hi = std::max(*lo, toInt8(a.max));
  }
}

rt::Tensor int32Tensor(const std::vector<int32_t>& v) {
  return rt::Tensor::fromVector<int32_t>({static_cast<int64_t>(v.size())}, v);
}

}  // namespace

QConvConstants buildQConv(const FloatConv& conv, double x_scale, double y_scale, std::optional<double> residual_scale,
                          const std::string& what) {
  QConvConstants c;
  const std::vector<double> w_scale = quantizeWeights(conv.weights, &c.weights);
  const int64_t channels = conv.weights.dim(0), per = conv.weights.numElements() / channels;
  RequantSpec spec;
  for (int64_t o = 0; o < channels; ++o) {
    const double acc_unit = x_scale * w_scale[o];  // the real value of one accumulator step
    spec.multiplier.push_back(acc_unit / y_scale);
    spec.acc_bound.push_back(accumulatorBound(c.weights.data<int8_t>() + o * per, per));
    if (!conv.bias.empty()) {
      const double b = std::nearbyint(conv.bias[o] / acc_unit);
      if (!(std::fabs(b) < 0x1p62))
        throw std::domain_error(what + ": bias of channel " + std::to_string(o) + " is out of range");
      spec.bias.push_back(static_cast<int64_t>(b));
    }
    if (residual_scale) spec.residual_multiplier.push_back(*residual_scale / y_scale);
  }
  activationClip(conv.activation, y_scale, &spec.clip_lo, &spec.clip_hi);
  spec.allow_wide_product = true;  // activations are symmetric: zero point 0
  try {
    c.requant = chooseRequantParams(spec);
  } catch (const std::exception& e) {
    throw std::domain_error(what + ": " + e.what());
  }
  c.bias1 = int32Tensor(c.requant.bias1);
  c.mult = int32Tensor(c.requant.mult);
  c.bias2 = int32Tensor(c.requant.bias2);
  if (residual_scale) c.residual_mult = int32Tensor(c.requant.residual_mult);
  c.attrs = conv.geometry;
  c.attrs.shift1 = c.requant.shift1;
  c.attrs.shift2 = c.requant.shift2;
  c.attrs.wide_product = c.requant.wide_product;
  c.attrs.residual_shift = c.requant.residual_shift;
  c.attrs.clip_lo = c.requant.clip_lo;
  c.attrs.clip_hi = c.requant.clip_hi;
  c.attrs.x_zero_point = 0;
  return c;
}

}  // namespace vdla::quant::detail
