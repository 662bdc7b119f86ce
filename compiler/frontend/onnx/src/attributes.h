// ONNX AttributeProto -> rt::Attribute. INT, FLOAT (as double), STRING, INTS,
// FLOATS and TENSOR convert; every other kind (graphs, sparse tensors, lists of
// strings or tensors, references to function attributes) is refused.
#pragma once

#include <onnx/onnx_pb.h>

#include "vdla/runtime/attributes.h"

namespace vdla::frontend::detail {

// Throws std::runtime_error naming the attribute.
rt::Attribute attributeFromProto(const onnx::AttributeProto& proto);
// All attributes of a node; refuses duplicate names.
rt::AttributeMap attributesFromNode(const onnx::NodeProto& node);

}  // namespace vdla::frontend::detail
