// Shape inference: sets the type of every node output from its inputs, in
// topological order, through each operator's infer_types. Errors name the node.
#pragma once

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/ir/op_registry.h"

namespace vdla::passes {

void inferShapes(ir::Graph& graph, const ir::OpRegistry& ops = ir::OpRegistry::builtin());

}  // namespace vdla::passes
