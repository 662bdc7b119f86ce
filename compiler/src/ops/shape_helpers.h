// Small helpers shared by the type-inference functions of the operator families.
#pragma once

#include <stdexcept>
#include <string>

#include "vdla/compiler/ir/graph.h"

namespace vdla::ir {

// The type of input i; throws "input i is missing" / "has no type".
const TensorType& inputType(const Node& node, size_t i);
// Numpy-style multidirectional broadcasting; throws naming both shapes.
Shape broadcastShapes(const Shape& a, const Shape& b);
// Sets output i to the given type.
void setOutputType(Node& node, size_t i, DType dtype, Shape shape);
// Normalises a possibly negative axis against rank; throws when out of range.
int64_t normalizeAxis(int64_t axis, int64_t rank);

}  // namespace vdla::ir
