// Small helpers shared by the type-inference functions of the operator families.
// Every check throws std::invalid_argument with the reason; shape inference adds
// the node ("node 'conv3' (Conv): ...").
#pragma once

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::ir {

// The type of input i; throws "input i is missing" / "has no type".
const TensorType& inputType(const Node& node, size_t i);
// Whether optional input i is present.
bool hasInput(const Node& node, size_t i);
// Numpy-style multidirectional broadcasting; throws naming both shapes.
Shape broadcastShapes(const Shape& a, const Shape& b);
// Sets output i to the given type.
void setOutputType(Node& node, size_t i, DType dtype, Shape shape);
// Normalises a possibly negative axis against rank; throws when out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank);

// "[1,2,3]".
std::string intsToString(const std::vector<int64_t>& values);
// Throws "<what> must be f32 or i8, got u8" when t's element type is not allowed.
void expectDType(const TensorType& t, std::initializer_list<DType> allowed, const std::string& what);
// Throws unless t has exactly one element (a scalar or a 1-element vector).
void expectScalar(const TensorType& t, const std::string& what);
// Throws unless t holds one element or is 1-D with `count` elements
// (per-tensor or per-axis quantisation parameters).
void expectScalarOrVector(const TensorType& t, int64_t count, const std::string& what);

// The value of a constant integer input (any integer element type); throws
// when the input is missing or not a constant.
std::vector<int64_t> constantInts(const Node& node, size_t i, const std::string& what);
bool isConstantInput(const Node& node, size_t i);

// Integer list attribute or, from newer opsets, a constant input: the attribute
// wins when present; `present` tells whether either was given.
std::vector<int64_t> intsFromAttributeOrInput(const Node& node, const std::string& attribute, size_t input,
                                              bool* present);

// An element-type attribute (Cast's `to`, QuantizeLinear's `output_dtype`):
// an ONNX TensorProto.DataType number (1 float, 2 uint8, 3 int8, 6 int32,
// 7 int64, 9 bool) or one of the IR's names ("f32", "u8", ...). Others throw
// naming the attribute.
DType dtypeAttribute(const AttributeMap& attrs, const std::string& name);

// Checks the fused-activation attributes that passes add to Conv, Gemm, MatMul
// and Add: activation = "Relu" | "Clip" (with activation_min <= activation_max).
void validateFusedActivation(const Node& node);

// Geometry of a sliding window (Conv, pooling) over the spatial dimensions,
// from the ONNX attributes strides, dilations, pads, auto_pad and (pooling
// only) ceil_mode.
struct WindowGeometry {
  std::vector<int64_t> kernel, strides, dilations, pads_begin, pads_end, output;
};
WindowGeometry inferWindow(const AttributeMap& attrs, const Shape& input_spatial, const std::vector<int64_t>& kernel,
                           bool is_pooling);

}  // namespace vdla::ir
