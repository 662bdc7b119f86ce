// Small helpers shared by the operator normalisers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_node.h"

namespace vdla::frontend::detail {

size_t inputRank(const OnnxNode& node, size_t i);  // throws when missing or untyped
// Input i as a constant; throws explaining that `what` decides a shape and so
// must be known when the model is compiled.
const rt::Tensor& requireConstantInput(const OnnxNode& node, size_t i, const std::string& what);
// The integer values of a constant (i32/i64/i8/u8), each within +-kMaxIntValue.
std::vector<int64_t> intValues(const rt::Tensor& t, const std::string& what);
// A new constant in the graph, named after `hint`.
ir::Value* addConstant(ir::Graph& graph, const std::string& hint, rt::Tensor value);
ir::Value* addInt64Constant(ir::Graph& graph, const std::string& hint, const std::vector<int64_t>& values);
// A scalar of the given element type holding `value`.
rt::Tensor scalarOf(rt::DType dtype, double value);
// Moves the ints attribute `attr` (when present) into constant input `index`.
void attributeToInput(OnnxNode& node, ir::Graph& graph, const std::string& attr, size_t index);
// Sets input i, growing the list with absent inputs.
void setInput(OnnxNode& node, size_t i, ir::Value* v);
// Drops absent inputs at the end.
void trimInputs(OnnxNode& node);

// Conv-like operators: replaces auto_pad by explicit pads (from the data input's
// shape, the kernel and strides/dilations) so that the IR never carries it.
// `weight_input` < 0 when the kernel comes only from kernel_shape (pooling).
void resolveAutoPad(OnnxNode& node, size_t data_input, int weight_input);

}  // namespace vdla::frontend::detail
