// Reading serialized ONNX protobufs with size limits: files to bytes, bytes to
// ModelProto / TensorProto. Throws OnnxImportError naming the source.
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace vdla::frontend::detail {

std::string readFileBytes(const std::string& path);
onnx::ModelProto parseModel(const std::string& bytes, const std::string& source_name);
onnx::TensorProto parseTensor(const std::string& bytes, const std::string& source_name);

}  // namespace vdla::frontend::detail
