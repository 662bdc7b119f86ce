#include "vdla/compiler/passes/remove_identities.h"

#include "pass_utils.h"

namespace vdla::passes {

namespace {

bool isUnused(const ir::Graph& graph, const ir::Value* v) { return graph.users(v).empty() && !graph.isGraphOutput(v); }

// Whether the node passes input 0 through unchanged at inference time.
bool isIdentity(const ir::Graph& graph, const ir::Node& node) {
  if (!node.domain().empty() || !node.input(0) || node.numOutputs() < 1) return false;
  const std::string& op = node.op();
  if (op == "Identity") return true;
  if (op == "Dropout") {
    for (size_t i = 1; i < node.numOutputs(); ++i)
      if (!isUnused(graph, node.output(i))) return false;      // someone reads the mask
    if (node.attrs().getInt("is_test", 1) == 0) return false;  // opset < 7 training form
    const ir::Value* training = node.input(2);
    if (!training) return true;
    auto mode = detail::scalarConstant(training);
    return mode && *mode == 0;
  }
  if (op == "Cast") {
    const ir::Value* in = node.input(0);
    const ir::Value* out = node.output(0);
    return in->hasType() && out->hasType() && in->type().dtype == out->type().dtype;
  }
  return false;
}

}  // namespace

bool removeIdentities(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node* node : graph.nodes()) {
    if (!isIdentity(graph, *node)) continue;
    detail::replaceValue(graph, node->output(0), node->input(0));
    graph.removeNode(node);
    changed = true;
  }
  return changed;
}

}  // namespace vdla::passes
