// Convolutions: Conv (fp32, optionally with a fused activation), ConvInteger
// and QLinearConv. Tensors are NC<spatial> with weights M x C/group x <kernel>;
// kernel_shape, when given, must agree with the weights. Spatial ranks 1 to 3.
#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

// Validates X and W against `group` and the window attributes; returns Y's shape.
Shape convOutputShape(const Node& node, const Shape& x, const Shape& w) {
  const AttributeMap& a = node.attrs();
  if (x.size() < 3 || x.size() > 5)
    throw std::invalid_argument("input X must have rank 3 to 5 (N, C and 1 to 3 spatial dimensions), got " +
                                rt::shapeToString(x));
  if (w.size() != x.size())
    throw std::invalid_argument("weights W " + rt::shapeToString(w) + " must have the rank of X " +
                                rt::shapeToString(x));
  const int64_t group = a.getInt("group", 1);
  if (group < 1) throw std::invalid_argument("attribute 'group' must be >= 1, got " + std::to_string(group));
  if (x[1] != w[1] * group)
    throw std::invalid_argument("input channels " + std::to_string(x[1]) + " do not match W's " + std::to_string(w[1]) +
                                " channels per group x group " + std::to_string(group));
  if (w[0] < 1 || w[0] % group != 0)
    throw std::invalid_argument("output channels " + std::to_string(w[0]) + " are not a positive multiple of group " +
                                std::to_string(group));
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  if (a.has("kernel_shape") && a.getInts("kernel_shape") != kernel)
    throw std::invalid_argument("attribute 'kernel_shape' " + intsToString(a.getInts("kernel_shape")) +
                                " does not match the weights' spatial shape " + intsToString(kernel));
  WindowGeometry g = inferWindow(a, Shape(x.begin() + 2, x.end()), kernel, false);
  Shape y = {x[0], w[0]};
  y.insert(y.end(), g.output.begin(), g.output.end());
  return y;
}

void inferConv(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& w = inputType(node, 1);
  expectDType(x, {DType::F32}, "input X");
  expectDType(w, {DType::F32}, "weights W");
  Shape y = convOutputShape(node, x.shape, w.shape);
  if (hasInput(node, 2)) {
    const TensorType& b = inputType(node, 2);
    expectDType(b, {DType::F32}, "bias B");
    if (b.shape != Shape{w.shape[0]})
      throw std::invalid_argument("bias B must have shape [" + std::to_string(w.shape[0]) + "], got " +
                                  rt::shapeToString(b.shape));
  }
  validateFusedActivation(node);
  setOutputType(node, 0, DType::F32, y);
}

// ConvInteger(x, w, x_zero_point?, w_zero_point?) -> i32.
void inferConvInteger(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& w = inputType(node, 1);
  expectDType(x, {DType::U8, DType::I8}, "input x");
  expectDType(w, {DType::U8, DType::I8}, "weights w");
  Shape y = convOutputShape(node, x.shape, w.shape);
  if (hasInput(node, 2)) {
    const TensorType& zp = inputType(node, 2);
    expectDType(zp, {x.dtype}, "x_zero_point");
    expectScalar(zp, "x_zero_point");
  }
  if (hasInput(node, 3)) {
    const TensorType& zp = inputType(node, 3);
    expectDType(zp, {w.dtype}, "w_zero_point");
    expectScalarOrVector(zp, w.shape[0], "w_zero_point");
  }
  setOutputType(node, 0, DType::I32, y);
}

// QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B?).
void inferQLinearConv(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& w = inputType(node, 3);
  expectDType(x, {DType::U8, DType::I8}, "input x");
  expectDType(w, {DType::U8, DType::I8}, "weights w");
  Shape y = convOutputShape(node, x.shape, w.shape);
  const int64_t m = w.shape[0];
  expectDType(inputType(node, 1), {DType::F32}, "x_scale");
  expectScalar(inputType(node, 1), "x_scale");
  if (hasInput(node, 2)) {
    expectDType(inputType(node, 2), {x.dtype}, "x_zero_point");
    expectScalar(inputType(node, 2), "x_zero_point");
  }
  expectDType(inputType(node, 4), {DType::F32}, "w_scale");
  expectScalarOrVector(inputType(node, 4), m, "w_scale");
  if (hasInput(node, 5)) {
    expectDType(inputType(node, 5), {w.dtype}, "w_zero_point");
    expectScalarOrVector(inputType(node, 5), m, "w_zero_point");
  }
  expectDType(inputType(node, 6), {DType::F32}, "y_scale");
  expectScalar(inputType(node, 6), "y_scale");
  DType out = x.dtype;
  if (hasInput(node, 7)) {
    const TensorType& zp = inputType(node, 7);
    expectDType(zp, {DType::U8, DType::I8}, "y_zero_point");
    expectScalar(zp, "y_zero_point");
    out = zp.dtype;
  }
  if (hasInput(node, 8)) {
    const TensorType& b = inputType(node, 8);
    expectDType(b, {DType::I32}, "bias B");
    if (b.shape != Shape{m})
      throw std::invalid_argument("bias B must have shape [" + std::to_string(m) + "], got " +
                                  rt::shapeToString(b.shape));
  }
  setOutputType(node, 0, out, y);
}

}  // namespace

void registerConvOps(OpRegistry& r) {
  r.add({"Conv", 2, 3, 1, 1, inferConv});
  r.add({"ConvInteger", 2, 4, 1, 1, inferConvInteger});
  r.add({"QLinearConv", 8, 9, 1, 1, inferQLinearConv});
}

}  // namespace vdla::ir
