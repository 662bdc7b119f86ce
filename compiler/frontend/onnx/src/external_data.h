// ONNX tensors whose data lies in files beside the model (external data, the
// form exporters use for weights past protobuf's 2 GiB limit and that
// onnx.save_model(..., save_as_external_data=True) writes): read into the
// tensors themselves before the import, checked like any other input.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace vdla::frontend::detail {

// Replaces every externally stored tensor of `model` (initializers and tensor
// attributes, in subgraphs too) by one holding its bytes, read from
// `base_dir`/location at the tensor's offset and length. A location must be a
// relative path that stays inside `base_dir`; the range must lie inside the
// file. An empty `base_dir` refuses external data (a model given as bytes has
// no place to resolve it against). Throws std::runtime_error naming `source`,
// the tensor and the file. Returns the number of tensors read.
size_t loadExternalData(onnx::ModelProto& model, const std::string& base_dir, const std::string& source);

}  // namespace vdla::frontend::detail
