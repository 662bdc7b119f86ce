// Structural checks of a graph: SSA (one producer per value, every input defined
// before use), known operators with valid arity, outputs present and, when
// asked, every value typed with a static shape.
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/ir/op_registry.h"

namespace vdla::ir {

struct VerifyOptions {
  bool require_types = true;
};

// Every problem found, each naming the node or value; empty when the graph is valid.
std::vector<std::string> verifyGraph(const Graph& graph, const VerifyOptions& options = {},
                                     const OpRegistry& ops = OpRegistry::builtin());
// Throws std::runtime_error listing the problems.
void verifyGraphOrThrow(const Graph& graph, const VerifyOptions& options = {},
                        const OpRegistry& ops = OpRegistry::builtin());

}  // namespace vdla::ir
