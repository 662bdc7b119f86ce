// The reference executor: interprets a typed graph node by node with the
// reference kernels. It is the golden model every backend is compared with.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla {

struct ReferenceRunOptions {
  // Called after each node with its outputs (for per-layer comparisons).
  std::function<void(const ir::Node&, const std::vector<rt::Tensor>&)> on_node;
};

// Runs the graph on the given inputs (one per graph input, in order, with the
// graph input's type) and returns the graph outputs. Errors name the node.
std::vector<rt::Tensor> runReference(const ir::Graph& graph, const std::vector<rt::Tensor>& inputs,
                                     const ReferenceRunOptions& options = {});

}  // namespace vdla
