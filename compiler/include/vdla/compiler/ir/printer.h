// Readable text form of a graph, one node per line:
//   %conv1_out: f32[1,64,112,112] = Conv(%input, %w, %b) {pads=[3,3,3,3], strides=[2,2]}  # conv1
#pragma once

#include <ostream>
#include <string>

#include "vdla/compiler/ir/graph.h"

namespace vdla::ir {

struct PrintOptions {
  bool show_constants = true;  // list constants with their types before the nodes
  bool show_node_names = true;
};

void printGraph(std::ostream& out, const Graph& graph, const PrintOptions& options = {});
std::string graphToString(const Graph& graph, const PrintOptions& options = {});

}  // namespace vdla::ir
