#include "normalize_helpers.h"

#include <algorithm>
#include <stdexcept>

#include "import_limits.h"

namespace vdla::frontend::detail {

size_t OnnxNode::numPresentOutputs() const {
  size_t n = outputs.size();
  while (n > 0 && outputs[n - 1].empty()) --n;
  return n;
}

size_t inputRank(const OnnxNode& node, size_t i) {
  const ir::Value* v = node.input(i);
  if (!v) throw std::runtime_error("input " + std::to_string(i) + " is missing");
  return v->type().shape.size();
}

const rt::Tensor& requireConstantInput(const OnnxNode& node, size_t i, const std::string& what) {
  const ir::Value* v = node.input(i);
  if (!v) throw std::runtime_error("input " + std::to_string(i) + " (" + what + ") is missing");
  if (!v->isConstant())
    throw std::runtime_error("input " + std::to_string(i) + " (" + what + ") '" + v->name() +
                             "' is computed at run time; it decides a shape, so it must be a constant "
                             "(an initializer or a Constant node) for this static-shape compiler");
  return v->constant();
}

std::vector<int64_t> intValues(const rt::Tensor& t, const std::string& what) {
  switch (t.dtype()) {
    case rt::DType::I64:
    case rt::DType::I32:
    case rt::DType::I8:
    case rt::DType::U8: break;
    default: throw std::runtime_error(what + " has element type " + rt::dtypeName(t.dtype()) + ", expected integers");
  }
  if (t.rank() > 1)
    throw std::runtime_error(what + " must be a scalar or 1-D, got shape " + rt::shapeToString(t.shape()));
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    int64_t v = t.getAsInt(i);
    if (v > kMaxIntValue || v < -kMaxIntValue)
      throw std::runtime_error(what + " value " + std::to_string(v) + " is out of range (|v| <= 2^31)");
    out.push_back(v);
  }
  return out;
}

ir::Value* addConstant(ir::Graph& graph, const std::string& hint, rt::Tensor value) {
  return graph.addConstant(graph.uniqueName(hint), std::move(value));
}

ir::Value* addInt64Constant(ir::Graph& graph, const std::string& hint, const std::vector<int64_t>& values) {
  return addConstant(graph, hint, rt::Tensor::fromVector<int64_t>({static_cast<int64_t>(values.size())}, values));
}

rt::Tensor scalarOf(rt::DType dtype, double value) {
  // Integer targets need a value they can hold (NaN, infinities and
  // out-of-range values would be undefined behaviour to convert).
  auto fits = [value](double lo, double hi) {
    if (!(value >= lo && value <= hi))
      throw std::runtime_error("value " + std::to_string(value) + " does not fit the input's integer element type");
  };
  switch (dtype) {
    case rt::DType::I8: fits(-128, 127); break;
    case rt::DType::U8: fits(0, 255); break;
    case rt::DType::I32: fits(-2147483648.0, 2147483647.0); break;
    case rt::DType::I64: fits(-9223372036854775808.0, 9223372036854774784.0); break;
    default: break;
  }
  switch (dtype) {
    case rt::DType::F32: return rt::Tensor::scalar<float>(static_cast<float>(value));
    case rt::DType::I8: return rt::Tensor::scalar<int8_t>(static_cast<int8_t>(value));
    case rt::DType::U8: return rt::Tensor::scalar<uint8_t>(static_cast<uint8_t>(value));
    case rt::DType::I32: return rt::Tensor::scalar<int32_t>(static_cast<int32_t>(value));
    case rt::DType::I64: return rt::Tensor::scalar<int64_t>(static_cast<int64_t>(value));
    case rt::DType::Bool: return rt::Tensor::scalar<bool>(value != 0);
  }
  throw std::logic_error("scalarOf: unknown dtype");
}

void setInput(OnnxNode& node, size_t i, ir::Value* v) {
  if (node.inputs.size() <= i) node.inputs.resize(i + 1, nullptr);
  node.inputs[i] = v;
}

void trimInputs(OnnxNode& node) {
  while (!node.inputs.empty() && !node.inputs.back()) node.inputs.pop_back();
}

void attributeToInput(OnnxNode& node, ir::Graph& graph, const std::string& attr, size_t index) {
  if (!node.attrs.has(attr)) return;
  if (node.input(index)) throw std::runtime_error("'" + attr + "' is given both as attribute and as input");
  std::vector<int64_t> values = node.attrs.getInts(attr);
  node.attrs.erase(attr);
  setInput(node, index, addInt64Constant(graph, node.op_type + "_" + attr, values));
}

void resolveAutoPad(OnnxNode& node, size_t data_input, int weight_input) {
  const std::string mode = node.attrs.getString("auto_pad", "NOTSET");
  node.attrs.erase("auto_pad");
  if (mode == "NOTSET") return;
  if (mode != "VALID" && mode != "SAME_UPPER" && mode != "SAME_LOWER")
    throw std::runtime_error("attribute 'auto_pad' has unknown value '" + mode + "'");
  if (node.attrs.has("pads")) {
    // Some exporters write zero pads next to auto_pad; anything else is contradictory.
    const std::vector<int64_t>& given = node.attrs.getInts("pads");
    if (std::any_of(given.begin(), given.end(), [](int64_t p) { return p != 0; }))
      throw std::runtime_error("attributes 'auto_pad' and non-zero 'pads' are both given");
    node.attrs.erase("pads");
  }

  const ir::Value* x = node.input(data_input);
  if (!x) throw std::runtime_error("input " + std::to_string(data_input) + " is missing");
  const rt::Shape& in = x->type().shape;
  if (in.size() < 3) throw std::runtime_error("input has shape " + rt::shapeToString(in) + ", expected rank >= 3");
  const size_t spatial = in.size() - 2;

  std::vector<int64_t> kernel;
  if (node.attrs.has("kernel_shape")) {
    kernel = node.attrs.getInts("kernel_shape");
  } else if (weight_input >= 0 && node.input(static_cast<size_t>(weight_input))) {
    const rt::Shape& w = node.input(static_cast<size_t>(weight_input))->type().shape;
    if (w.size() == in.size()) kernel.assign(w.begin() + 2, w.end());
  }
  if (kernel.size() != spatial)
    throw std::runtime_error("cannot resolve auto_pad: kernel shape has " + std::to_string(kernel.size()) +
                             " dimensions for " + std::to_string(spatial) + " spatial dimensions");
  auto listOr1 = [&](const char* name) {
    std::vector<int64_t> v = node.attrs.getInts(name, std::vector<int64_t>(spatial, 1));
    if (v.size() != spatial)
      throw std::runtime_error(std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                               " values for " + std::to_string(spatial) + " spatial dimensions");
    for (int64_t s : v)
      if (s < 1) throw std::runtime_error(std::string("attribute '") + name + "' must be positive");
    return v;
  };
  const std::vector<int64_t> strides = listOr1("strides");
  const std::vector<int64_t> dilations = listOr1("dilations");

  std::vector<int64_t> pads(2 * spatial, 0);
  if (mode != "VALID") {
    for (size_t d = 0; d < spatial; ++d) {
      if (kernel[d] < 1) throw std::runtime_error("kernel_shape must be positive");
      const int64_t out = (in[d + 2] + strides[d] - 1) / strides[d];
      const int64_t effective_kernel = (kernel[d] - 1) * dilations[d] + 1;
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[d] + effective_kernel - in[d + 2]);
      const int64_t small = total / 2, large = total - small;
      pads[d] = mode == "SAME_UPPER" ? small : large;
      pads[d + spatial] = mode == "SAME_UPPER" ? large : small;
    }
  }
  node.attrs.set("pads", pads);
  // With the pads explicit, floor rounding gives exactly the output size auto_pad
  // defines, ceil rounding could give one more.
  node.attrs.erase("ceil_mode");
}

}  // namespace vdla::frontend::detail
