// Pre-quantised models onto the accelerator: a graph in ONNX's integer form
// (QLinearConv, com.microsoft.QGemm, ... as qdq-to-integer-ops leaves a QDQ
// model) is rewritten so that its convolutions and dense layers become
// vdla.QConv, honouring the model's own scales and zero points.
//
//  1. Signed activations. The accelerator computes on int8; uint8 activations
//     (zero point z) become int8 (value - 128, zero point z - 128), which
//     leaves every real value unchanged: QuantizeLinear, DequantizeLinear,
//     QLinearConv, QLinearAdd/Mul, QLinearGlobalAveragePool, QGemm and
//     QLinearMatMul get int8 zero points, value-preserving operators in between
//     (MaxPool, Flatten, Reshape, ...) carry the int8 tensor. A uint8 value
//     that a graph input/output or another operator reads stays uint8.
//     Every operator's result is unchanged by the shift except QLinearAdd's
//     (onnxruntime folds the zero points into one rounded float constant),
//     which gets unsigned_domain = 1: it computes on the uint8 values.
//  2. QLinearConv with int8 input and output and int8 weights of zero point 0
//     becomes vdla.QConv: padding holds the input zero point, the bias absorbs
//     -x_zero_point * sum(w), and the multiplier s_x * s_w / s_y becomes the
//     ALU's multiply-and-shift (chooseRequantParams, free of int32 overflow).
//  3. QGemm (transB, alpha 1, quantised output) becomes Reshape to
//     [N, K, 1, 1], a 1x1 vdla.QConv, Reshape back.
//  4. The requantisation: RequantForm::Float keeps onnxruntime's, the int32
//     sum times the binary32 scale s_x * s_w / s_y rounded half to even
//     (vdla.QConv float_requant: bit for bit onnxruntime's result; the
//     accelerator's ALU op FREQ). RequantForm::Integer, for an accelerator
//     without that op, uses an integer multiplier that rounds half up: an
//     output may then differ by one unit from onnxruntime's.
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::quant {

enum class RequantForm { Float, Integer };

struct QLinearConversionReport {
  size_t signed_values = 0;  // uint8 activations turned into int8
  size_t convolutions = 0;   // QLinearConv -> vdla.QConv
  size_t dense = 0;          // QGemm -> vdla.QConv
  RequantForm form = RequantForm::Float;
  // Integer operators left as they are, with the reason (node name, why).
  std::vector<std::pair<std::string, std::string>> kept;
};

// True when the graph holds ONNX integer convolutions or dense layers
// (QLinearConv, com.microsoft.QGemm).
bool hasQLinearOperators(const ir::Graph& graph);

// Rewrites `graph` in place (typed, after the standard pipeline); the result
// is re-typed and verified.
QLinearConversionReport convertQLinearToQConv(ir::Graph& graph, RequantForm form = RequantForm::Float);

}  // namespace vdla::quant
