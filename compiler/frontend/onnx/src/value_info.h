// Graph inputs: ONNX ValueInfoProto -> IR tensor type, resolving symbolic and
// unknown dimensions from the import options.
#pragma once

#include <onnx/onnx_pb.h>

#include "vdla/frontend/onnx_importer.h"
#include "vdla/runtime/tensor.h"

namespace vdla::frontend::detail {

// Throws std::runtime_error with the reason (the caller names the input).
rt::TensorType inputType(const onnx::ValueInfoProto& info, const OnnxImportOptions& options);

}  // namespace vdla::frontend::detail
