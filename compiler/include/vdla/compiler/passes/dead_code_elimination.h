// Removes every node none of whose outputs reaches a graph output, and every
// constant nothing reads. Graph inputs stay (they are the graph's signature).
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool eliminateDeadCode(ir::Graph& graph);

}  // namespace vdla::passes
