// The value of an ONNX Constant node (value, value_float(s), value_int(s)).
#pragma once

#include <onnx/onnx_pb.h>

#include "vdla/runtime/tensor.h"

namespace vdla::frontend::detail {

// Throws std::runtime_error for sparse or string constants and malformed nodes.
rt::Tensor constantNodeValue(const onnx::NodeProto& node);

}  // namespace vdla::frontend::detail
