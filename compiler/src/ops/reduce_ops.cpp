// Reductions: ReduceMean, ReduceSum, ReduceMax, ReduceMin. Axes come from the
// attribute `axes` (older opsets) or a constant second input (ReduceSum from
// opset 13, the others from 18). No axes reduces every dimension unless
// noop_with_empty_axes=1, which makes the node an identity. keepdims (default 1)
// keeps reduced dimensions as 1.
#include <algorithm>

#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

void inferReduce(Node& node) {
  const AttributeMap& a = node.attrs();
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32}, "input data");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t keepdims = a.getInt("keepdims", 1);
  const int64_t noop = a.getInt("noop_with_empty_axes", 0);
  if (keepdims != 0 && keepdims != 1) throw std::invalid_argument("attribute 'keepdims' must be 0 or 1");
  if (noop != 0 && noop != 1) throw std::invalid_argument("attribute 'noop_with_empty_axes' must be 0 or 1");
  bool present = false;
  std::vector<int64_t> axes = intsFromAttributeOrInput(node, "axes", 1, &present);
  if (axes.empty()) {
    if (noop) {
      setOutputType(node, 0, x.dtype, x.shape);
      return;
    }
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) {
    int64_t n = normalizeAxis(axis, rank);
    if (reduced[n]) throw std::invalid_argument("'axes' " + intsToString(axes) + " repeats an axis");
    reduced[n] = true;
  }
  Shape y;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      y.push_back(x.shape[i]);
    else if (keepdims)
      y.push_back(1);
  }
  setOutputType(node, 0, x.dtype, y);
}

}  // namespace

void registerReduceOps(OpRegistry& r) {
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"}) r.add({op, 1, 2, 1, 1, inferReduce});
}

}  // namespace vdla::ir
