#include "op_normalize.h"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>

#include "import_limits.h"
#include "normalize_helpers.h"
#include "tensor_proto.h"

namespace vdla::frontend::detail {

namespace {

[[noreturn]] void unsupported(const std::string& reason) { throw std::runtime_error(reason); }

// ---- convolution and pooling -------------------------------------------------

void normalizeConv(OnnxNode& n, ir::Graph&) { resolveAutoPad(n, 0, 1); }
void normalizeQLinearConv(OnnxNode& n, ir::Graph&) { resolveAutoPad(n, 0, 3); }

void normalizeMaxPool(OnnxNode& n, ir::Graph&) {
  if (n.numPresentOutputs() > 1) unsupported("the Indices output (argmax) is not supported");
  n.outputs.resize(1);
  if (n.attrs.getInt("storage_order", 0) != 0) unsupported("storage_order=1 (column-major indices) is not supported");
  n.attrs.erase("storage_order");
  resolveAutoPad(n, 0, -1);
}

void normalizeAveragePool(OnnxNode& n, ir::Graph&) { resolveAutoPad(n, 0, -1); }

// ---- normalisation and inference-only operators ------------------------------

void normalizeBatchNorm(OnnxNode& n, ir::Graph&) {
  if (n.attrs.getInt("training_mode", 0) != 0) unsupported("training_mode=1 is not supported (inference only)");
  if (n.numPresentOutputs() > 1)
    unsupported("outputs beyond Y (running or saved mean/variance) mean training mode, which is not supported");
  if (n.attrs.getInt("spatial", 1) != 1) unsupported("spatial=0 (per-activation statistics) is not supported");
  n.attrs.erase("training_mode");
  n.attrs.erase("momentum");
  n.attrs.erase("spatial");
  n.outputs.resize(1);
}

void normalizeLayerNorm(OnnxNode& n, ir::Graph&) {
  // Mean and InvStdDev are training outputs; inference reads Y alone.
  if (n.numPresentOutputs() > 1) unsupported("the Mean and InvStdDev outputs (training) are not supported");
  if (n.attrs.getInt("stash_type", 1) != 1)
    unsupported("stash_type " + std::to_string(n.attrs.getInt("stash_type", 1)) +
                " is not supported (statistics are computed in float, stash_type 1)");
  n.attrs.erase("stash_type");
  n.outputs.resize(1);
}

void normalizeDropout(OnnxNode& n, ir::Graph&) {
  // Inference: Dropout passes its input through; the optional mask is all true.
  // Training mode with ratio 0 drops nothing and scales by 1/(1-0): the
  // identity too (exporters write it for attention dropouts of probability 0).
  if (n.input(2)) {
    const rt::Tensor& training = requireConstantInput(n, 2, "training_mode");
    const bool train = training.numElements() != 1 || training.getAsInt(0) != 0;
    const bool zero_ratio = n.input(1) && requireConstantInput(n, 1, "ratio").numElements() == 1 &&
                            requireConstantInput(n, 1, "ratio").getAsDouble(0) == 0.0;
    if (train && !zero_ratio)
      unsupported("training_mode=true with a nonzero (or default 0.5) ratio is not supported (inference only)");
  }
  if (n.attrs.getInt("is_test", 1) == 0) unsupported("is_test=0 (training mode) is not supported");
  n.inputs.resize(1);
  n.attrs.erase("ratio");
  n.attrs.erase("seed");
  n.attrs.erase("is_test");
  n.outputs.resize(n.numPresentOutputs());
}

// ---- operators whose attributes became inputs --------------------------------

void normalizeClip(OnnxNode& n, ir::Graph& g) {
  if (n.opset >= 11) return;
  // Opset 6..10: float attributes min/max; the IR takes them as scalar inputs.
  const rt::DType dtype = n.input(0)->type().dtype;
  if (n.attrs.has("min")) setInput(n, 1, addConstant(g, "Clip_min", scalarOf(dtype, n.attrs.getFloat("min"))));
  if (n.attrs.has("max")) setInput(n, 2, addConstant(g, "Clip_max", scalarOf(dtype, n.attrs.getFloat("max"))));
  n.attrs.erase("min");
  n.attrs.erase("max");
}

void normalizePad(OnnxNode& n, ir::Graph& g) {
  const size_t rank = inputRank(n, 0);
  if (n.opset < 11) {
    if (!n.attrs.has("pads")) unsupported("attribute 'pads' is missing");
    attributeToInput(n, g, "pads", 1);
    const double value = n.attrs.getFloat("value", 0.0);
    n.attrs.erase("value");
    if (value != 0.0) setInput(n, 2, addConstant(g, "Pad_value", scalarOf(n.input(0)->type().dtype, value)));
  }
  std::vector<int64_t> pads = intValues(requireConstantInput(n, 1, "pads"), "pads");
  if (n.input(3)) {
    // Opset 18: pads for the listed axes only; the IR takes pads for every axis.
    std::vector<int64_t> axes = intValues(requireConstantInput(n, 3, "axes"), "axes");
    if (pads.size() != 2 * axes.size())
      unsupported("pads has " + std::to_string(pads.size()) + " values for " + std::to_string(axes.size()) + " axes");
    std::vector<int64_t> full(2 * rank, 0);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t a = axes[i] < 0 ? axes[i] + static_cast<int64_t>(rank) : axes[i];
      if (a < 0 || a >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(a)])
        unsupported("axes value " + std::to_string(axes[i]) + " is out of range or repeated");
      seen[static_cast<size_t>(a)] = true;
      full[static_cast<size_t>(a)] = pads[i];
      full[static_cast<size_t>(a) + rank] = pads[i + axes.size()];
    }
    n.inputs.resize(3);
    setInput(n, 1, addInt64Constant(g, "Pad_pads", full));
    pads = full;
  }
  if (pads.size() != 2 * rank)
    unsupported("pads has " + std::to_string(pads.size()) + " values for an input of rank " + std::to_string(rank));
  trimInputs(n);
}

void normalizeAxesInput(OnnxNode& n, ir::Graph& g, int64_t first_input_opset) {
  if (n.opset < first_input_opset) attributeToInput(n, g, "axes", 1);
  if (n.input(1)) intValues(requireConstantInput(n, 1, "axes"), "axes");
}

void normalizeSqueeze(OnnxNode& n, ir::Graph& g) { normalizeAxesInput(n, g, 13); }
void normalizeUnsqueeze(OnnxNode& n, ir::Graph& g) {
  normalizeAxesInput(n, g, 13);
  if (!n.input(1)) unsupported("axes are missing");
}
// Slice took starts/ends/axes as attributes before opset 10 (steps came with
// the inputs). The values stay unchecked here: exporters write INT64_MAX for
// "to the end", which the IR's clamping handles.
void normalizeSlice(OnnxNode& n, ir::Graph& g) {
  if (n.opset < 10) {
    attributeToInput(n, g, "starts", 1);
    attributeToInput(n, g, "ends", 2);
    attributeToInput(n, g, "axes", 3);
  }
  if (!n.input(1) || !n.input(2)) unsupported("starts and ends are required");
  trimInputs(n);
}
// Split took its sizes as an attribute before opset 13.
void normalizeSplit(OnnxNode& n, ir::Graph& g) {
  if (n.opset < 13) attributeToInput(n, g, "split", 1);
  trimInputs(n);
}
// Reductions took their axes as an input from opset 13 (ReduceSum) or 18 (the others).
void normalizeReduceSum(OnnxNode& n, ir::Graph& g) { normalizeAxesInput(n, g, 13); }
void normalizeReduce(OnnxNode& n, ir::Graph& g) { normalizeAxesInput(n, g, 18); }

void normalizeSoftmax(OnnxNode& n, ir::Graph&) {
  // Before opset 13 Softmax and LogSoftmax flatten the input to 2-D at `axis` (default 1).
  if (n.opset < 13) {
    n.attrs.set("axis", n.attrs.getInt("axis", 1));
    n.attrs.set("legacy_2d", int64_t{1});
  } else {
    n.attrs.set("axis", n.attrs.getInt("axis", -1));
  }
}

// ---- shapes and types --------------------------------------------------------

void normalizeReshape(OnnxNode& n, ir::Graph&) {
  std::vector<int64_t> shape = intValues(requireConstantInput(n, 1, "shape"), "shape");
  if (shape.size() > kMaxRank) unsupported("shape has " + std::to_string(shape.size()) + " dimensions");
  int64_t product = 1, inferred = 0;
  for (int64_t d : shape) {
    if (d < -1) unsupported("shape value " + std::to_string(d) + " is invalid");
    if (d == -1 && ++inferred > 1) unsupported("shape has more than one -1");
    if (d > 0) {
      if (d > kMaxTensorBytes / product) unsupported("shape " + rt::shapeToString(shape) + " is too large");
      product *= d;
    }
  }
}

void normalizeCast(OnnxNode& n, ir::Graph&) {
  dtypeFromOnnx(static_cast<int32_t>(n.attrs.getInt("to")));  // throws for types the runtime lacks
  n.attrs.erase("saturate");                                  // only affects float8 targets
}

void normalizeQuantizeLinear(OnnxNode& n, ir::Graph& g) {
  if (n.attrs.getInt("block_size", 0) != 0) unsupported("blocked quantization (block_size) is not supported");
  n.attrs.erase("block_size");
  n.attrs.erase("saturate");  // only affects float8 targets
  if (n.attrs.has("output_dtype")) {
    const rt::DType want = dtypeFromOnnx(static_cast<int32_t>(n.attrs.getInt("output_dtype")));
    n.attrs.erase("output_dtype");
    if (const ir::Value* zp = n.input(2)) {
      if (zp->type().dtype != want) unsupported("output_dtype differs from the zero point's element type");
    } else {
      setInput(n, 2, addConstant(g, "QuantizeLinear_zero_point", scalarOf(want, 0)));
    }
  }
}

void normalizeDequantizeLinear(OnnxNode& n, ir::Graph&) {
  if (n.attrs.getInt("block_size", 0) != 0) unsupported("blocked quantization (block_size) is not supported");
  n.attrs.erase("block_size");
}

// ---- the table -----------------------------------------------------------------

std::vector<OpSpec> buildTable() {
  const std::vector<std::string> conv_attrs = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
  const std::vector<std::string> pool_attrs = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "strides"};
  std::vector<OpSpec> t;
  auto add = [&](std::string domain, std::string op, int min_in, int max_in, int max_out,
                 std::vector<std::string> attrs, void (*fn)(OnnxNode&, ir::Graph&) = nullptr) {
    t.push_back({std::move(domain), std::move(op), min_in, max_in, max_out, std::move(attrs), fn});
  };
  add("", "Conv", 2, 3, 1, conv_attrs, normalizeConv);
  add("", "QLinearConv", 8, 9, 1, conv_attrs, normalizeQLinearConv);
  std::vector<std::string> max_pool_attrs = pool_attrs;
  max_pool_attrs.push_back("storage_order");
  add("", "MaxPool", 1, 1, 2, max_pool_attrs, normalizeMaxPool);
  std::vector<std::string> avg_pool_attrs = pool_attrs;
  avg_pool_attrs.push_back("count_include_pad");
  add("", "AveragePool", 1, 1, 1, avg_pool_attrs, normalizeAveragePool);
  add("", "ConvInteger", 2, 4, 1, conv_attrs, normalizeConv);
  add("", "GlobalAveragePool", 1, 1, 1, {});
  add("", "GlobalMaxPool", 1, 1, 1, {});
  add("", "BatchNormalization", 5, 5, 5, {"epsilon", "momentum", "spatial", "training_mode"}, normalizeBatchNorm);
  add("", "LayerNormalization", 2, 3, 3, {"axis", "epsilon", "stash_type"}, normalizeLayerNorm);
  add("", "Dropout", 1, 3, 2, {"ratio", "seed", "is_test"}, normalizeDropout);
  for (const char* op :
       {"Relu", "Sigmoid", "Tanh", "Exp", "Neg", "Abs", "Sqrt", "Reciprocal", "HardSwish", "Identity", "Erf"})
    add("", op, 1, 1, 1, {});
  add("", "LeakyRelu", 1, 1, 1, {"alpha"});
  add("", "HardSigmoid", 1, 1, 1, {"alpha", "beta"});
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) add("", op, 2, 2, 1, {});
  add("", "Mod", 2, 2, 1, {"fmod"});
  add("", "Clip", 1, 3, 1, {"min", "max"}, normalizeClip);
  add("", "Flatten", 1, 1, 1, {"axis"});
  add("", "Reshape", 2, 2, 1, {"allowzero"}, normalizeReshape);
  add("", "Gemm", 2, 3, 1, {"alpha", "beta", "transA", "transB"});
  add("", "MatMul", 2, 2, 1, {});
  add("", "Einsum", 1, 16, 1, {"equation"});
  add("", "Softmax", 1, 1, 1, {"axis"}, normalizeSoftmax);
  add("", "LogSoftmax", 1, 1, 1, {"axis"}, normalizeSoftmax);
  add("", "Concat", 1, -1, 1, {"axis"});
  add("", "Pad", 1, 4, 1, {"mode", "pads", "value"}, normalizePad);
  add("", "Transpose", 1, 1, 1, {"perm"});
  add("", "Squeeze", 1, 2, 1, {"axes"}, normalizeSqueeze);
  add("", "Unsqueeze", 1, 2, 1, {"axes"}, normalizeUnsqueeze);
  add("", "Shape", 1, 1, 1, {"start", "end"});
  add("", "Gather", 2, 2, 1, {"axis"});
  add("", "ConstantOfShape", 1, 1, 1, {"value"});
  add("", "Range", 3, 3, 1, {});
  add("", "ScatterND", 3, 3, 1, {"reduction"});
  add("", "Equal", 2, 2, 1, {});
  add("", "Not", 1, 1, 1, {});
  add("", "Where", 3, 3, 1, {});
  add("", "Expand", 2, 2, 1, {});
  add("", "Slice", 1, 5, 1, {"starts", "ends", "axes"}, normalizeSlice);
  add("", "Split", 1, 2, -1, {"axis", "split", "num_outputs"}, normalizeSplit);
  const std::vector<std::string> reduce_attrs = {"axes", "keepdims", "noop_with_empty_axes"};
  add("", "ReduceSum", 1, 2, 1, reduce_attrs, normalizeReduceSum);
  for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin"}) add("", op, 1, 2, 1, reduce_attrs, normalizeReduce);
  add("", "Cast", 1, 1, 1, {"to", "saturate"}, normalizeCast);
  add("", "QuantizeLinear", 2, 3, 1, {"axis", "saturate", "block_size", "output_dtype"}, normalizeQuantizeLinear);
  add("", "DequantizeLinear", 2, 3, 1, {"axis", "block_size"}, normalizeDequantizeLinear);
  add("", "MatMulInteger", 2, 4, 1, {});
  add("", "QLinearMatMul", 8, 8, 1, {});
  add("com.microsoft", "QLinearAdd", 7, 8, 1, {});
  add("com.microsoft", "QLinearMul", 7, 8, 1, {});
  add("com.microsoft", "QLinearGlobalAveragePool", 5, 5, 1, {"channels_last"});
  return t;
}

const std::map<std::string, OpSpec>& table() {
  static const std::map<std::string, OpSpec> specs = [] {
    std::map<std::string, OpSpec> m;
    for (OpSpec& s : buildTable()) {
      std::string key = s.domain.empty() ? s.op_type : s.domain + "." + s.op_type;
      m.emplace(key, std::move(s));
    }
    return m;
  }();
  return specs;
}

}  // namespace

const OpSpec* findOpSpec(const std::string& domain, const std::string& op_type) {
  auto it = table().find(domain.empty() ? op_type : domain + "." + op_type);
  return it == table().end() ? nullptr : &it->second;
}

std::vector<std::string> supportedOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, spec] : table()) names.push_back(name);
  return names;
}

}  // namespace vdla::frontend::detail
