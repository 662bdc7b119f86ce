#include "vdla/compiler/passes/simplify_reshapes.h"

#include "pass_utils.h"

namespace vdla::passes {

namespace {

bool isReshapeLike(const ir::Node* node) {
  if (!node || !node->domain().empty() || node->numOutputs() != 1 || !node->input(0)) return false;
  const std::string& op = node->op();
  return op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze";
}

bool isStatic(const ir::Value* v) {
  if (!v || !v->hasType()) return false;
  for (int64_t d : v->type().shape)
    if (d < 0) return false;
  return true;
}

int64_t product(const rt::Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

// The Flatten axis that turns `from` into `to`, or -1. Axis 1 (the batch-keeping
// form) is preferred when several fit (leading or trailing ones).
int64_t flattenAxis(const rt::Shape& from, const rt::Shape& to) {
  if (to.size() != 2) return -1;
  auto fits = [&](size_t k) { return product(from, 0, k) == to[0] && product(from, k, from.size()) == to[1]; };
  if (from.size() >= 1 && fits(1)) return 1;
  for (size_t k = 0; k <= from.size(); ++k)
    if (fits(k)) return static_cast<int64_t>(k);
  return -1;
}

// The chains' inner links that nothing reads any more, last first.
bool removeUnreadReshapes(ir::Graph& graph) {
  bool changed = false;
  std::vector<ir::Node*> nodes = graph.nodes();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    ir::Node* node = *it;
    if (isReshapeLike(node) && graph.users(node->output(0)).empty() && !graph.isGraphOutput(node->output(0))) {
      graph.removeNode(node);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

bool foldCancellingReshapes(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node* node : graph.nodes()) {
    if (!isReshapeLike(node) || !isStatic(node->output(0)) || graph.isGraphOutput(node->output(0))) continue;
    ir::Value* src = node->input(0);
    while (isReshapeLike(src->producer())) src = src->producer()->input(0);
    if (!isStatic(src) || src->type() != node->output(0)->type()) continue;
    detail::replaceValue(graph, node->output(0), src);
    graph.removeNode(node);
    changed = true;
  }
  return removeUnreadReshapes(graph) || changed;
}

bool simplifyReshapes(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node* node : graph.nodes()) {
    if (!isReshapeLike(node) || !isStatic(node->output(0))) continue;
    // Reshapes compose: the node reshapes the chain's origin directly.
    ir::Value* src = node->input(0);
    while (isReshapeLike(src->producer())) src = src->producer()->input(0);
    if (!isStatic(src) || src->type().dtype != node->output(0)->type().dtype) continue;
    const rt::Shape& from = src->type().shape;
    const rt::Shape& to = node->output(0)->type().shape;

    ir::Node* replacement = nullptr;
    if (from == to) {
      detail::replaceValue(graph, node->output(0), src);
    } else if (int64_t axis = flattenAxis(from, to); axis >= 0) {
      if (node->op() == "Flatten" && node->input(0) == src) continue;  // already canonical
      rt::AttributeMap attrs;
      attrs.set("axis", axis);
      replacement = graph.insertNodeBefore(node, "Flatten", {src}, 1, std::move(attrs),
                                           graph.uniqueName(node->name() + "_flatten"));
    } else {
      if (node->input(0) == src) continue;  // no chain: keep the node as written
      bool has_zero = false;                // Reshape reads 0 as "copy the input dimension"
      for (int64_t d : to) has_zero = has_zero || d == 0;
      if (has_zero) continue;
      ir::Value* shape = graph.addConstant(graph.uniqueName(node->name() + "_shape"),
                                           rt::Tensor::fromVector<int64_t>({static_cast<int64_t>(to.size())}, to));
      replacement =
          graph.insertNodeBefore(node, "Reshape", {src, shape}, 1, {}, graph.uniqueName(node->name() + "_reshape"));
    }
    if (replacement) {
      detail::inferNodeTypes(*replacement);
      detail::replaceValue(graph, node->output(0), replacement->output(0));
    }
    graph.removeNode(node);
    changed = true;
  }
  return removeUnreadReshapes(graph) || changed;
}

}  // namespace vdla::passes
