#include "value_info.h"

#include <stdexcept>

#include "import_limits.h"
#include "tensor_proto.h"

namespace vdla::frontend::detail {

rt::TensorType inputType(const onnx::ValueInfoProto& info, const OnnxImportOptions& options) {
  if (!info.has_type() || !info.type().has_tensor_type())
    throw std::runtime_error("it is not a tensor (sequences, maps and optionals are not supported)");
  const onnx::TypeProto::Tensor& tensor = info.type().tensor_type();
  rt::TensorType type;
  type.dtype = dtypeFromOnnx(tensor.elem_type());

  auto override_it = options.input_shapes.find(info.name());
  if (override_it != options.input_shapes.end()) {
    type.shape = override_it->second;
  } else {
    if (!tensor.has_shape()) throw std::runtime_error("it has no shape; give one with OnnxImportOptions::input_shapes");
    for (const onnx::TensorShapeProto::Dimension& d : tensor.shape().dim()) {
      if (d.has_dim_value()) {
        if (d.dim_value() < 0) throw std::runtime_error("dimension " + std::to_string(d.dim_value()) + " is negative");
        type.shape.push_back(d.dim_value());
      } else if (d.has_dim_param()) {
        auto it = options.dim_values.find(d.dim_param());
        int64_t value = it == options.dim_values.end() ? 1 : it->second;
        if (value < 0)
          throw std::runtime_error("dim_values gives '" + d.dim_param() + "' the negative value " +
                                   std::to_string(value));
        type.shape.push_back(value);
      } else {
        type.shape.push_back(1);  // unknown, unnamed: a batch of one
      }
    }
  }
  checkedNumElements(type.shape, type.dtype, "it");
  return type;
}

}  // namespace vdla::frontend::detail
