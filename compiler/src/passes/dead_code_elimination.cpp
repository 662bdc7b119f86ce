#include "vdla/compiler/passes/dead_code_elimination.h"

#include <unordered_set>

namespace vdla::passes {

bool eliminateDeadCode(ir::Graph& graph) {
  std::vector<ir::Node*> nodes = graph.nodes();
  // Backwards over the topological order: a node is live when a graph output or a
  // live node reads one of its outputs.
  std::unordered_set<const ir::Value*> needed(graph.outputs().begin(), graph.outputs().end());
  std::vector<ir::Node*> dead;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    ir::Node* node = *it;
    bool live = false;
    for (const ir::Value* out : node->outputs()) live = live || needed.count(out);
    if (!live) {
      dead.push_back(node);  // reverse topological order: readers go first
      continue;
    }
    for (const ir::Value* in : node->inputs())
      if (in) needed.insert(in);
  }
  size_t values_before = graph.values().size();
  for (ir::Node* node : dead) graph.removeNode(node);
  graph.removeUnusedValues();
  return !dead.empty() || graph.values().size() != values_before;
}

}  // namespace vdla::passes
