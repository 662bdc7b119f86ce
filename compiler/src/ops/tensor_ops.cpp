// Data movement: Flatten, Reshape, Concat, Pad, Transpose, Squeeze, Unsqueeze,
// Shape and Gather. They accept any element type. Values that decide an output
// shape (Reshape's shape, Pad's pads, Squeeze/Unsqueeze axes from opset 13)
// must be constants: either the opset's attribute or a constant input.
#include <algorithm>

#include "register_ops.h"
#include "vdla/runtime/range_length.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

void inferFlatten(Node& node) {
  const TensorType& x = inputType(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t axis = node.attrs().getInt("axis", 1);
  if (axis < -rank || axis > rank)
    throw std::invalid_argument("attribute 'axis' " + std::to_string(axis) + " is out of range [" +
                                std::to_string(-rank) + "," + std::to_string(rank) + "]");
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? outer : inner) *= x.shape[i];
  setOutputType(node, 0, x.dtype, {outer, inner});
}

// Reshape(data, shape): 0 copies the input dimension (unless allowzero=1, where
// it means an empty dimension) and one -1 takes what is left.
void inferReshape(Node& node) {
  const TensorType& x = inputType(node, 0);
  std::vector<int64_t> spec = constantInts(node, 1, "shape");
  const int64_t allowzero = node.attrs().getInt("allowzero", 0);
  Shape y(spec.size());
  int64_t infer_at = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == -1) {
      if (infer_at >= 0) throw std::invalid_argument("shape " + intsToString(spec) + " has more than one -1");
      infer_at = static_cast<int64_t>(i);
      continue;
    }
    if (d < -1) throw std::invalid_argument("shape " + intsToString(spec) + " has a negative dimension");
    if (d == 0 && !allowzero) {
      if (i >= x.shape.size())
        throw std::invalid_argument("shape " + intsToString(spec) + " copies dimension " + std::to_string(i) +
                                    " (0), which the input " + rt::shapeToString(x.shape) + " does not have");
      d = x.shape[i];
    }
    y[i] = d;
    known *= d;
  }
  const int64_t total = x.numElements();
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0)
      throw std::invalid_argument("cannot reshape " + rt::shapeToString(x.shape) + " to " + intsToString(spec));
    y[infer_at] = total / known;
  } else if (known != total) {
    throw std::invalid_argument("cannot reshape " + rt::shapeToString(x.shape) + " (" + std::to_string(total) +
                                " elements) to " + intsToString(spec));
  }
  setOutputType(node, 0, x.dtype, y);
}

void inferConcat(Node& node) {
  if (node.numInputs() == 0) throw std::invalid_argument("needs at least one input");
  const TensorType& first = inputType(node, 0);
  if (!node.attrs().has("axis")) throw std::invalid_argument("missing attribute 'axis'");
  const int64_t rank = static_cast<int64_t>(first.shape.size());
  if (rank == 0) throw std::invalid_argument("inputs must have rank >= 1");
  const int64_t axis = normalizeAxis(node.attrs().getInt("axis"), rank);
  Shape y = first.shape;
  y[axis] = 0;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    const TensorType& t = inputType(node, i);
    if (t.dtype != first.dtype)
      throw std::invalid_argument("input " + std::to_string(i) + " has type " + rt::dtypeName(t.dtype) +
                                  ", input 0 has " + rt::dtypeName(first.dtype));
    bool ok = static_cast<int64_t>(t.shape.size()) == rank;
    for (int64_t d = 0; ok && d < rank; ++d) ok = d == axis || t.shape[d] == first.shape[d];
    if (!ok)
      throw std::invalid_argument("input " + std::to_string(i) + " " + rt::shapeToString(t.shape) +
                                  " does not match input 0 " + rt::shapeToString(first.shape) + " outside axis " +
                                  std::to_string(axis));
    y[axis] += t.shape[axis];
  }
  setOutputType(node, 0, first.dtype, y);
}

// Pad(data, pads?, constant_value?, axes?): pads from the attribute (opset < 11)
// or the constant input; modes constant, reflect and edge. Negative pads crop.
void inferPad(Node& node) {
  const AttributeMap& a = node.attrs();
  const TensorType& x = inputType(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const std::string mode = a.getString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    throw std::invalid_argument("attribute 'mode' has unsupported value \"" + mode +
                                "\" (supported: constant, reflect, edge)");
  std::vector<int64_t> pads;
  if (a.has("pads")) {
    if (hasInput(node, 1)) throw std::invalid_argument("'pads' is given both as an attribute and as input 1");
    pads = a.getInts("pads");
  } else {
    pads = constantInts(node, 1, "pads");
  }
  std::vector<int64_t> axes;
  if (hasInput(node, 3)) {
    for (int64_t axis : constantInts(node, 3, "axes")) axes.push_back(normalizeAxis(axis, rank));
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (pads.size() != 2 * axes.size())
    throw std::invalid_argument("'pads' has " + std::to_string(pads.size()) + " values, expected " +
                                std::to_string(2 * axes.size()));
  if (hasInput(node, 2)) {
    const TensorType& v = inputType(node, 2);
    expectDType(v, {x.dtype}, "constant_value");
    expectScalar(v, "constant_value");
  }
  Shape y = x.shape;
  const size_t n = axes.size();
  for (size_t i = 0; i < n; ++i) {
    const int64_t d = axes[i];
    y[d] = x.shape[d] + pads[i] + pads[i + n];
    if (y[d] < 0)
      throw std::invalid_argument("'pads' " + intsToString(pads) + " crop dimension " + std::to_string(d) +
                                  " below zero");
    if (mode != "constant" && x.shape[d] == 0 && (pads[i] > 0 || pads[i + n] > 0))
      throw std::invalid_argument("mode '" + mode + "' cannot pad the empty dimension " + std::to_string(d));
  }
  setOutputType(node, 0, x.dtype, y);
}

void inferTranspose(Node& node) {
  const TensorType& x = inputType(node, 0);
  const size_t rank = x.shape.size();
  std::vector<int64_t> perm;
  for (size_t i = 0; i < rank; ++i) perm.push_back(static_cast<int64_t>(rank - 1 - i));
  perm = node.attrs().getInts("perm", perm);
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = perm.size() == rank;
  for (size_t i = 0; ok && i < rank; ++i) ok = sorted[i] == static_cast<int64_t>(i);
  if (!ok)
    throw std::invalid_argument("attribute 'perm' " + intsToString(perm) + " is not a permutation of the " +
                                std::to_string(rank) + " input dimensions");
  Shape y(rank);
  for (size_t i = 0; i < rank; ++i) y[i] = x.shape[perm[i]];
  setOutputType(node, 0, x.dtype, y);
}

void inferSqueeze(Node& node) {
  const TensorType& x = inputType(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  bool present = false;
  std::vector<int64_t> axes = intsFromAttributeOrInput(node, "axes", 1, &present);
  std::vector<bool> drop(static_cast<size_t>(rank), false);
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) drop[i] = x.shape[i] == 1;
  } else {
    for (int64_t axis : axes) {
      int64_t d = normalizeAxis(axis, rank);
      if (x.shape[d] != 1)
        throw std::invalid_argument("cannot squeeze axis " + std::to_string(axis) + " of " +
                                    rt::shapeToString(x.shape) + ": its size is not 1");
      drop[d] = true;
    }
  }
  Shape y;
  for (int64_t i = 0; i < rank; ++i)
    if (!drop[i]) y.push_back(x.shape[i]);
  setOutputType(node, 0, x.dtype, y);
}

void inferUnsqueeze(Node& node) {
  const TensorType& x = inputType(node, 0);
  bool present = false;
  std::vector<int64_t> axes = intsFromAttributeOrInput(node, "axes", 1, &present);
  if (axes.empty()) throw std::invalid_argument("'axes' is missing or empty");
  const int64_t out_rank = static_cast<int64_t>(x.shape.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t axis : axes) {
    int64_t d = normalizeAxis(axis, out_rank);
    if (inserted[d]) throw std::invalid_argument("'axes' " + intsToString(axes) + " repeats an axis");
    inserted[d] = true;
  }
  Shape y;
  size_t next = 0;
  for (int64_t i = 0; i < out_rank; ++i) y.push_back(inserted[i] ? 1 : x.shape[next++]);
  setOutputType(node, 0, x.dtype, y);
}

// Shape(data) with the opset-15 slice [start, end) of the dimensions.
void inferShape(Node& node) {
  const TensorType& x = inputType(node, 0);
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  auto clampIndex = [rank](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank); };
  const int64_t start = clampIndex(node.attrs().getInt("start", 0));
  const int64_t end = clampIndex(node.attrs().getInt("end", rank));
  setOutputType(node, 0, DType::I64, {std::max<int64_t>(0, end - start)});
}

// ConstantOfShape(shape): a tensor of the given shape (a constant i64 vector)
// filled with the one element of attribute `value` (default f32 0).
void inferConstantOfShape(Node& node) {
  const TensorType& s = inputType(node, 0);
  expectDType(s, {DType::I64}, "input shape");
  if (s.shape.size() != 1)
    throw std::invalid_argument("input shape must be a vector, got " + rt::shapeToString(s.shape));
  if (!isConstantInput(node, 0)) throw std::invalid_argument("input shape must be a constant");
  const Tensor& dims = node.input(0)->constant();
  Shape shape;
  for (int64_t i = 0; i < dims.numElements(); ++i) {
    if (dims.getAsInt(i) < 0) throw std::invalid_argument("input shape has a negative dimension");
    shape.push_back(dims.getAsInt(i));
  }
  DType dtype = DType::F32;
  if (node.attrs().has("value")) {
    const Tensor& v = node.attrs().getTensor("value");
    if (v.numElements() != 1) throw std::invalid_argument("attribute 'value' must hold one element");
    dtype = v.dtype();
  }
  setOutputType(node, 0, dtype, shape);
}

// Range(start, limit, delta): a vector of max(ceil((limit - start) / delta), 0)
// elements; its length depends on the values, so the three scalars must be
// constants of one type (exporters compute them from shapes, which fold).
void inferRange(Node& node) {
  const TensorType& t = inputType(node, 0);
  expectDType(t, {DType::F32, DType::I32, DType::I64}, "start");
  const char* names[] = {"start", "limit", "delta"};
  for (size_t i = 0; i < 3; ++i) {
    const TensorType& v = inputType(node, i);
    if (v.dtype != t.dtype)
      throw std::invalid_argument(std::string(names[i]) + " must be " + rt::dtypeName(t.dtype) + " like start, got " +
                                  rt::dtypeName(v.dtype));
    if (rt::numElements(v.shape) != 1) throw std::invalid_argument(std::string(names[i]) + " must be a scalar");
    if (!isConstantInput(node, i)) throw std::invalid_argument(std::string(names[i]) + " must be a constant");
  }
  setOutputType(node, 0, t.dtype,
                {rt::rangeLength(node.input(0)->constant(), node.input(1)->constant(), node.input(2)->constant())});
}

// ScatterND(data, indices, updates): data's type and shape; indices [..., k]
// (k <= rank) address slices data[i0..ik-1], and updates holds one slice per
// index tuple: indices.shape[:-1] + data.shape[k:]. Only plain replacement
// (reduction "none").
void inferScatterND(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& idx = inputType(node, 1);
  const TensorType& upd = inputType(node, 2);
  expectDType(idx, {DType::I64}, "indices");
  if (upd.dtype != x.dtype)
    throw std::invalid_argument(std::string("updates must be ") + rt::dtypeName(x.dtype) + " like data, got " +
                                rt::dtypeName(upd.dtype));
  const std::string reduction = node.attrs().getString("reduction", "none");
  if (reduction != "none") throw std::invalid_argument("reduction '" + reduction + "' is not supported (only none)");
  if (idx.shape.empty()) throw std::invalid_argument("indices must have rank >= 1");
  const int64_t k = idx.shape.back();
  if (k < 1 || k > static_cast<int64_t>(x.shape.size()))
    throw std::invalid_argument("indices' last dimension " + std::to_string(k) + " must be in [1, rank of data " +
                                std::to_string(x.shape.size()) + "]");
  Shape want(idx.shape.begin(), idx.shape.end() - 1);
  want.insert(want.end(), x.shape.begin() + k, x.shape.end());
  if (upd.shape != want)
    throw std::invalid_argument("updates must have shape " + rt::shapeToString(want) + ", got " +
                                rt::shapeToString(upd.shape));
  setOutputType(node, 0, x.dtype, x.shape);
}

// Gather(data, indices): out = data.shape[:axis] + indices.shape + data.shape[axis+1:].
void inferGather(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& idx = inputType(node, 1);
  expectDType(idx, {DType::I32, DType::I64}, "indices");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw std::invalid_argument("data must have rank >= 1");
  const int64_t axis = normalizeAxis(node.attrs().getInt("axis", 0), rank);
  if (isConstantInput(node, 1)) {
    const Tensor& t = node.input(1)->constant();
    for (int64_t i = 0; i < t.numElements(); ++i) {
      int64_t v = t.getAsInt(i);
      if (v < -x.shape[axis] || v >= x.shape[axis])
        throw std::invalid_argument("index " + std::to_string(v) + " is out of range for axis " + std::to_string(axis) +
                                    " of size " + std::to_string(x.shape[axis]));
    }
  }
  Shape y(x.shape.begin(), x.shape.begin() + axis);
  y.insert(y.end(), idx.shape.begin(), idx.shape.end());
  y.insert(y.end(), x.shape.begin() + axis + 1, x.shape.end());
  setOutputType(node, 0, x.dtype, y);
}

}  // namespace

void registerTensorOps(OpRegistry& r) {
  r.add({"Flatten", 1, 1, 1, 1, inferFlatten});
  r.add({"Reshape", 2, 2, 1, 1, inferReshape});
  r.add({"Concat", 1, -1, 1, 1, inferConcat});
  r.add({"Pad", 1, 4, 1, 1, inferPad});
  r.add({"Transpose", 1, 1, 1, 1, inferTranspose});
  r.add({"Squeeze", 1, 2, 1, 1, inferSqueeze});
  r.add({"Unsqueeze", 1, 2, 1, 1, inferUnsqueeze});
  r.add({"Shape", 1, 1, 1, 1, inferShape});
  r.add({"Gather", 2, 2, 1, 1, inferGather});
  r.add({"ConstantOfShape", 1, 1, 1, 1, inferConstantOfShape});
  r.add({"Range", 3, 3, 1, 1, inferRange});
  r.add({"ScatterND", 3, 3, 1, 1, inferScatterND});
}

}  // namespace vdla::ir
