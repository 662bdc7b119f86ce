// ONNX TensorProto <-> rt::Tensor: element types and checked decoding of
// raw_data and the typed repeated fields.
#pragma once

#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

#include "vdla/runtime/tensor.h"

namespace vdla::frontend::detail {

// "FLOAT", "INT64", ... for messages; "type 42" for unknown codes.
std::string onnxTypeName(int32_t elem_type);
// The runtime's element type for an ONNX one; throws naming the ONNX type when
// the runtime has none (DOUBLE, FLOAT16, STRING, ...).
rt::DType dtypeFromOnnx(int32_t elem_type);
// The ONNX code of a runtime element type.
int32_t onnxFromDtype(rt::DType dtype);

// Decodes a tensor, checking its dims, that its data matches them exactly and
// that it is not stored externally. Throws std::runtime_error with the reason.
rt::Tensor tensorFromProto(const onnx::TensorProto& proto);

}  // namespace vdla::frontend::detail
