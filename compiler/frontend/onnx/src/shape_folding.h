// Folds shape computations while importing. Exporters compute Reshape targets
// at run time from the input's shape (Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape); with static shapes every value of such a chain is known during
// import, and the Reshape that reads it needs it as a constant to be typed.
#pragma once

#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::frontend::detail {

// If `node` (typed, just added) is a Shape, or a small integer computation
// whose inputs are all constants, replaces it by constants: returns true and
// the constant for each output in `replacements`, and removes the node.
bool foldShapeComputation(ir::Graph& graph, ir::Node* node, std::vector<ir::Value*>* replacements);

}  // namespace vdla::frontend::detail
