#include "constant_node.h"

#include <stdexcept>

#include "tensor_proto.h"

namespace vdla::frontend::detail {

rt::Tensor constantNodeValue(const onnx::NodeProto& node) {
  if (node.input_size() != 0) throw std::runtime_error("a Constant node takes no inputs");
  if (node.output_size() != 1 || node.output(0).empty()) throw std::runtime_error("a Constant node has one output");
  if (node.attribute_size() != 1)
    throw std::runtime_error("a Constant node needs exactly one attribute, it has " +
                             std::to_string(node.attribute_size()));
  const onnx::AttributeProto& a = node.attribute(0);
  const std::string& name = a.name();
  if (name == "value") {
    if (!a.has_t()) throw std::runtime_error("attribute 'value' holds no tensor");
    try {
      return tensorFromProto(a.t());
    } catch (const std::exception& e) {
      throw std::runtime_error("attribute 'value': " + std::string(e.what()));
    }
  }
  if (name == "value_float") {
    if (!a.has_f()) throw std::runtime_error("attribute 'value_float' holds no float");
    return rt::Tensor::scalar<float>(a.f());
  }
  if (name == "value_floats") {
    std::vector<float> v(a.floats().begin(), a.floats().end());
    return rt::Tensor::fromVector<float>({static_cast<int64_t>(v.size())}, v);
  }
  if (name == "value_int") {
    if (!a.has_i()) throw std::runtime_error("attribute 'value_int' holds no integer");
    return rt::Tensor::scalar<int64_t>(a.i());
  }
  if (name == "value_ints") {
    std::vector<int64_t> v(a.ints().begin(), a.ints().end());
    return rt::Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v);
  }
  if (name == "sparse_value" || name == "value_string" || name == "value_strings")
    throw std::runtime_error("attribute '" + name + "' is not supported (sparse and string constants)");
  throw std::runtime_error("unsupported attribute '" + name + "'");
}

}  // namespace vdla::frontend::detail
