// Turns a real-valued convolution (fp32 weights and bias, geometry, fused
// activation) and the scales around it into the constants and attributes of
// a vdla.QConv node. Private to the quantisation pass.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vdla/compiler/quant/requant.h"
#include "vdla/runtime/qconv_attributes.h"
#include "vdla/runtime/tensor.h"

namespace vdla::quant::detail {

// The activation fused into the layer, in real units.
struct FusedActivation {
  enum Kind { None, Relu, Clip } kind = None;
  double min = 0, max = 0;  // Clip bounds (may be infinite)
};

struct FloatConv {
  rt::Tensor weights;            // f32 [O, C/group, KH, KW]
  std::vector<double> bias;      // one per output channel, or empty
  rt::QConvAttributes geometry;  // strides, pads, dilations, group (the rest is chosen here)
  FusedActivation activation;
};

struct QConvConstants {
  rt::Tensor weights;             // i8 [O, C/group, KH, KW]
  rt::Tensor bias1, mult, bias2;  // i32 [O]
  rt::Tensor residual_mult;       // i32 [O], or empty without a residual
  rt::QConvAttributes attrs;
  RequantParams requant;
};

// x_scale, y_scale: the input's and output's int8 scales; residual_scale:
// the scale of the fused residual R, if any. Throws naming `what` when the
// requantisation cannot be made exact.
QConvConstants buildQConv(const FloatConv& conv, double x_scale, double y_scale, std::optional<double> residual_scale,
                          const std::string& what);

}  // namespace vdla::quant::detail
