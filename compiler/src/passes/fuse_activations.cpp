#include "vdla/compiler/passes/fuse_activations.h"

#include <limits>

#include "pass_utils.h"

namespace vdla::passes {

namespace {

struct Activation {
  std::string kind;  // "Relu" or "Clip"
  double min = 0;
  double max = 0;
};

// The activation a Relu or Clip node applies, when it is fusable.
std::optional<Activation> activationOf(const ir::Node& node) {
  if (!node.domain().empty() || !node.input(0)) return std::nullopt;
  if (node.op() == "Relu") return Activation{"Relu"};
  if (node.op() != "Clip") return std::nullopt;
  Activation a{"Clip", -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  // Opset >= 11 passes the bounds as optional inputs, older opsets as attributes.
  a.min = node.attrs().getFloat("min", a.min);
  a.max = node.attrs().getFloat("max", a.max);
  if (node.input(1)) {
    auto v = detail::scalarConstant(node.input(1));
    if (!v) return std::nullopt;
    a.min = *v;
  }
  if (node.input(2)) {
    auto v = detail::scalarConstant(node.input(2));
    if (!v) return std::nullopt;
    a.max = *v;
  }
  if (a.min == 0 && a.max == std::numeric_limits<double>::infinity()) return Activation{"Relu"};
  return a;
}

// Which producers take which activation.
bool canFuse(const ir::Node& producer, const Activation& a) {
  if (!producer.domain().empty() || producer.attrs().has("activation")) return false;
  const std::string& op = producer.op();
  if (op == "Conv") return true;
  if (op == "Gemm") return true;
  if (op == "Add") return a.kind == "Relu";
  return false;
}

}  // namespace

bool fuseActivations(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node* node : graph.nodes()) {
    std::optional<Activation> a = activationOf(*node);
    if (!a) continue;
    ir::Value* x = node->input(0);
    ir::Node* producer = x->producer();
    if (!producer || producer->numOutputs() != 1 || !canFuse(*producer, *a)) continue;
    if (!x->hasType() || x->type().dtype != rt::DType::F32 || !detail::hasSingleUse(graph, x)) continue;
    producer->attrs().set("activation", a->kind);
    if (a->kind == "Clip") {
      producer->attrs().set("activation_min", a->min);
      producer->attrs().set("activation_max", a->max);
    }
    detail::replaceValue(graph, node->output(0), x);
    graph.removeNode(node);
    changed = true;
  }
  return changed;
}

}  // namespace vdla::passes
