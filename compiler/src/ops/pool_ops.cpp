// Pooling: MaxPool (optional Indices output, storage_order 0 only), AveragePool
// (count_include_pad), GlobalAveragePool, GlobalMaxPool and
// com.microsoft.QLinearGlobalAveragePool (attribute channels_last: NHWC input
// and output). Windows follow the ONNX rules for pads, auto_pad, dilations and
// ceil_mode (a last window that would start in the trailing padding is dropped).
#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

void expectSpatialInput(const TensorType& x) {
  if (x.shape.size() < 3 || x.shape.size() > 5)
    throw std::invalid_argument("input X must have rank 3 to 5 (N, C and 1 to 3 spatial dimensions), got " +
                                rt::shapeToString(x.shape));
}

Shape poolOutputShape(const Node& node, const TensorType& x) {
  expectSpatialInput(x);
  const AttributeMap& a = node.attrs();
  if (!a.has("kernel_shape")) throw std::invalid_argument("missing attribute 'kernel_shape'");
  WindowGeometry g = inferWindow(a, Shape(x.shape.begin() + 2, x.shape.end()), a.getInts("kernel_shape"), true);
  Shape y = {x.shape[0], x.shape[1]};
  y.insert(y.end(), g.output.begin(), g.output.end());
  return y;
}

void inferMaxPool(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32, DType::U8, DType::I8}, "input X");
  const int64_t order = node.attrs().getInt("storage_order", 0);
  if (order != 0)
    throw std::invalid_argument("attribute 'storage_order' = " + std::to_string(order) +
                                " is not supported (only 0, row-major indices)");
  Shape y = poolOutputShape(node, x);
  setOutputType(node, 0, x.dtype, y);
  if (node.numOutputs() > 1) setOutputType(node, 1, DType::I64, y);
}

void inferAveragePool(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32}, "input X");
  const int64_t cip = node.attrs().getInt("count_include_pad", 0);
  if (cip != 0 && cip != 1)
    throw std::invalid_argument("attribute 'count_include_pad' must be 0 or 1, got " + std::to_string(cip));
  setOutputType(node, 0, DType::F32, poolOutputShape(node, x));
}

void inferGlobalPool(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32}, "input X");
  expectSpatialInput(x);
  Shape y = x.shape;
  for (size_t i = 2; i < y.size(); ++i) y[i] = 1;
  setOutputType(node, 0, DType::F32, y);
}

// QLinearGlobalAveragePool(X, x_scale, x_zero_point?, y_scale, y_zero_point?).
void inferQLinearGlobalAveragePool(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::U8, DType::I8}, "input X");
  expectSpatialInput(x);
  const int64_t channels_last = node.attrs().getInt("channels_last", 0);
  if (channels_last != 0 && channels_last != 1)
    throw std::invalid_argument("attribute 'channels_last' must be 0 or 1, got " + std::to_string(channels_last));
  expectDType(inputType(node, 1), {DType::F32}, "x_scale");
  expectScalar(inputType(node, 1), "x_scale");
  if (hasInput(node, 2)) {
    expectDType(inputType(node, 2), {x.dtype}, "x_zero_point");
    expectScalar(inputType(node, 2), "x_zero_point");
  }
  expectDType(inputType(node, 3), {DType::F32}, "y_scale");
  expectScalar(inputType(node, 3), "y_scale");
  if (hasInput(node, 4)) {
    expectDType(inputType(node, 4), {x.dtype}, "y_zero_point");
    expectScalar(inputType(node, 4), "y_zero_point");
  }
  Shape y = x.shape;
  // NCHW: spatial dimensions are 2..; NHWC: 1..rank-2.
  const size_t first = channels_last ? 1 : 2, last = channels_last ? y.size() - 1 : y.size();
  for (size_t i = first; i < last; ++i) y[i] = 1;
  setOutputType(node, 0, x.dtype, y);
}

}  // namespace

void registerPoolOps(OpRegistry& r) {
  r.add({"MaxPool", 1, 1, 1, 2, inferMaxPool});
  r.add({"AveragePool", 1, 1, 1, 1, inferAveragePool});
  r.add({"GlobalAveragePool", 1, 1, 1, 1, inferGlobalPool});
  r.add({"GlobalMaxPool", 1, 1, 1, 1, inferGlobalPool});
  r.add({"com.microsoft.QLinearGlobalAveragePool", 4, 5, 1, 1, inferQLinearGlobalAveragePool});
}

}  // namespace vdla::ir
