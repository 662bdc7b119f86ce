// Slicing: Slice and Split. The values that decide an output shape (Slice's
// starts/ends/axes/steps, Split's split sizes) must be constants: the opset's
// attribute (Slice before opset 10, Split before 13) or a constant input.
//
// Slice follows the ONNX rules: negative starts/ends count from the end of the
// axis, then starts/ends are clamped to [0, dim] for positive steps and to
// [0, dim-1] / [-1, dim-1] for negative ones; the output keeps
// max(0, ceil((end - start) / step)) elements.
#include <algorithm>

#include "register_ops.h"
#include "shape_helpers.h"
#include "vdla/runtime/slice_axis.h"

namespace vdla::ir {

namespace {

std::vector<int64_t> sliceList(const Node& node, const char* name, size_t input) {
  bool present = false;
  std::vector<int64_t> v = intsFromAttributeOrInput(node, name, input, &present);
  if (!present) throw std::invalid_argument(std::string("'") + name + "' is missing");
  return v;
}

void inferSlice(Node& node) {
  const TensorType& x = inputType(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const std::vector<int64_t> starts = sliceList(node, "starts", 1);
  const std::vector<int64_t> ends = sliceList(node, "ends", 2);
  if (starts.size() != ends.size())
    throw std::invalid_argument("'starts' has " + std::to_string(starts.size()) + " values, 'ends' " +
                                std::to_string(ends.size()));
  bool has_axes = false;
  std::vector<int64_t> axes = intsFromAttributeOrInput(node, "axes", 3, &has_axes);
  if (!has_axes)
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  std::vector<int64_t> steps(starts.size(), 1);
  if (hasInput(node, 4)) steps = constantInts(node, 4, "'steps'");
  if (axes.size() != starts.size() || steps.size() != starts.size())
    throw std::invalid_argument("'axes' (" + std::to_string(axes.size()) + ") and 'steps' (" +
                                std::to_string(steps.size()) + ") must have as many values as 'starts' (" +
                                std::to_string(starts.size()) + ")");
  Shape y = x.shape;
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = normalizeAxis(axes[i], rank);
    if (seen[axis]) throw std::invalid_argument("'axes' " + intsToString(axes) + " repeats an axis");
    seen[axis] = true;
    if (steps[i] == 0) throw std::invalid_argument("'steps' " + intsToString(steps) + " has a zero step");
    y[axis] = rt::resolveSliceAxis(starts[i], ends[i], steps[i], x.shape[axis]).count;
  }
  setOutputType(node, 0, x.dtype, y);
}

// Split(input, split?) -> outputs: the sizes from `split` (attribute before
// opset 13, constant input after), else num_outputs (opset 18: equal parts,
// the last one smaller) or the node's output count (equal parts only).
void inferSplit(Node& node) {
  const TensorType& x = inputType(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw std::invalid_argument("input must have rank >= 1");
  const int64_t axis = normalizeAxis(node.attrs().getInt("axis", 0), rank);
  const int64_t dim = x.shape[axis];
  const int64_t outputs = static_cast<int64_t>(node.numOutputs());
  bool present = false;
  std::vector<int64_t> sizes = intsFromAttributeOrInput(node, "split", 1, &present);
  if (present) {
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0) throw std::invalid_argument("'split' " + intsToString(sizes) + " has a negative size");
      total += s;
    }
    if (total != dim)
      throw std::invalid_argument("'split' " + intsToString(sizes) + " sums to " + std::to_string(total) + ", axis " +
                                  std::to_string(axis) + " has " + std::to_string(dim));
  } else if (node.attrs().has("num_outputs")) {
    const int64_t n = node.attrs().getInt("num_outputs");
    if (n != outputs)
      throw std::invalid_argument("attribute 'num_outputs' = " + std::to_string(n) + " but the node has " +
                                  std::to_string(outputs) + " outputs");
    const int64_t part = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i) sizes.push_back(std::clamp<int64_t>(dim - i * part, 0, part));
  } else {
    if (dim % outputs != 0)
      throw std::invalid_argument("axis " + std::to_string(axis) + " of size " + std::to_string(dim) +
                                  " does not split into " + std::to_string(outputs) + " equal parts");
    sizes.assign(static_cast<size_t>(outputs), dim / outputs);
  }
  if (static_cast<int64_t>(sizes.size()) != outputs)
    throw std::invalid_argument("'split' " + intsToString(sizes) + " has " + std::to_string(sizes.size()) +
                                " sizes for " + std::to_string(outputs) + " outputs");
  for (int64_t i = 0; i < outputs; ++i) {
    Shape y = x.shape;
    y[axis] = sizes[i];
    setOutputType(node, static_cast<size_t>(i), x.dtype, y);
  }
}

}  // namespace

void registerSliceOps(OpRegistry& r) {
  r.add({"Slice", 1, 5, 1, 1, inferSlice});
  r.add({"Split", 1, 2, 1, -1, inferSplit});
}

}  // namespace vdla::ir
