// Removes operators that compute nothing at inference time: Identity, Dropout
// (whose mask output nobody reads, not in training mode) and Cast to the type
// the value already has. A removed node's readers read its input instead; a
// graph output keeps its name.
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool removeIdentities(ir::Graph& graph);

}  // namespace vdla::passes
