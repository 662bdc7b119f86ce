// Normalisations: BatchNormalization (inference form only),
// LayerNormalization (opset 17; inference: Y only), Softmax and LogSoftmax.
//
// Softmax's meaning changed at opset 13. Before, the input was coerced to 2-D
// [prod(shape[:axis]), prod(shape[axis:])] and normalised over each row
// (default axis 1); from 13 on it normalises along the single axis `axis`
// (default -1). The IR keeps `axis` and records the old form with the integer
// attribute legacy_2d=1, which the importer sets for opset < 13; without it the
// opset-13 semantics apply. Both forms keep the input's shape.
#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

// BatchNormalization(X, scale, B, input_mean, input_var): Y = (X - mean) /
// sqrt(var + epsilon) * scale + B over channel dimension 1.
void inferBatchNorm(Node& node) {
  const AttributeMap& a = node.attrs();
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32}, "input X");
  if (x.shape.size() < 2)
    throw std::invalid_argument("input X must have rank >= 2 (N, C, ...), got " + rt::shapeToString(x.shape));
  if (a.getInt("training_mode", 0) != 0)
    throw std::invalid_argument("attribute 'training_mode' = 1 is not supported (inference only)");
  if (a.getInt("spatial", 1) != 1) throw std::invalid_argument("attribute 'spatial' = 0 is not supported");
  if (node.numOutputs() > 1)
    throw std::invalid_argument("the running mean/variance outputs (training mode) are not supported");
  if (a.getFloat("epsilon", 1e-5) < 0) throw std::invalid_argument("attribute 'epsilon' must be >= 0");
  const int64_t c = x.shape[1];
  const char* names[] = {"scale", "B", "input_mean", "input_var"};
  for (size_t i = 1; i <= 4; ++i) {
    const TensorType& t = inputType(node, i);
    expectDType(t, {DType::F32}, names[i - 1]);
    if (t.shape != Shape{c})
      throw std::invalid_argument(std::string(names[i - 1]) + " must have shape [" + std::to_string(c) +
                                  "] (one value per channel), got " + rt::shapeToString(t.shape));
  }
  setOutputType(node, 0, DType::F32, x.shape);
}

// LayerNormalization(X, Scale, B?): every slice X[i0..i(axis-1), ...] is
// normalised over the dimensions from `axis` on, then scaled and shifted;
// Scale and B broadcast to those dimensions (numpy rules, towards them).
void inferLayerNorm(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32}, "input X");
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  if (rank == 0) throw std::invalid_argument("input X must have rank >= 1");
  const int64_t axis = normalizeAxis(node.attrs().getInt("axis", -1), rank);
  if (node.attrs().getFloat("epsilon", 1e-5) < 0) throw std::invalid_argument("attribute 'epsilon' must be >= 0");
  const Shape normalized(x.shape.begin() + axis, x.shape.end());
  const char* names[] = {"Scale", "B"};
  for (size_t i = 1; i < node.numInputs() && i <= 2; ++i) {
    if (!node.input(i)) continue;
    const TensorType& t = inputType(node, i);
    expectDType(t, {DType::F32}, names[i - 1]);
    bool ok = t.shape.size() <= normalized.size();
    for (size_t d = 0; ok && d < t.shape.size(); ++d) {
      const int64_t have = t.shape[t.shape.size() - 1 - d], want = normalized[normalized.size() - 1 - d];
      ok = have == want || have == 1;
    }
    if (!ok)
      throw std::invalid_argument(std::string(names[i - 1]) + " of shape " + rt::shapeToString(t.shape) +
                                  " does not broadcast to the normalised dimensions " + rt::shapeToString(normalized));
  }
  setOutputType(node, 0, DType::F32, x.shape);
}

void inferSoftmax(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32}, "input");
  const int64_t legacy = node.attrs().getInt("legacy_2d", 0);
  if (legacy != 0 && legacy != 1)
    throw std::invalid_argument("attribute 'legacy_2d' must be 0 or 1, got " + std::to_string(legacy));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = node.attrs().getInt("axis", legacy ? 1 : -1);
  if (legacy) {
    // Opset < 13 accepts axis == rank (every row of one element).
    if (axis < -rank || axis > rank)
      throw std::invalid_argument("attribute 'axis' " + std::to_string(axis) + " is out of range for rank " +
                                  std::to_string(rank));
  } else {
    if (rank == 0) throw std::invalid_argument("input must have rank >= 1");
    normalizeAxis(axis, rank);
  }
  setOutputType(node, 0, DType::F32, x.shape);
}

}  // namespace

void registerNormalizationOps(OpRegistry& r) {
  r.add({"BatchNormalization", 5, 5, 1, 5, inferBatchNorm});
  r.add({"LayerNormalization", 2, 3, 1, 1, inferLayerNorm});
  r.add({"Softmax", 1, 1, 1, 1, inferSoftmax});
  r.add({"LogSoftmax", 1, 1, 1, 1, inferSoftmax});
}

}  // namespace vdla::ir
