#include "vdla/compiler/passes/canonicalize_pooling.h"

#include <algorithm>

#include "pass_utils.h"

namespace vdla::passes {

namespace {

bool isSpatialF32(const ir::Value* v) {
  return v && v->hasType() && v->type().dtype == rt::DType::F32 && v->type().shape.size() >= 3;
}

// The reduced axes of a ReduceMean, sorted and non-negative, when they are known.
std::optional<std::vector<int64_t>> reducedAxes(const ir::Node& node, int64_t rank) {
  std::vector<int64_t> axes;
  if (node.input(1)) {
    const rt::Tensor* t = detail::constantOf(node.input(1));
    if (!t) return std::nullopt;
    for (int64_t i = 0; i < t->numElements(); ++i) axes.push_back(t->getAsInt(i));
  } else {
    axes = node.attrs().getInts("axes", {});
  }
  if (axes.empty()) return std::nullopt;  // all axes (or none): not a spatial mean
  for (int64_t& a : axes) a = a < 0 ? a + rank : a;
  std::sort(axes.begin(), axes.end());
  return axes;
}

bool isGlobalMean(const ir::Node& node) {
  if (!isSpatialF32(node.input(0))) return false;
  const int64_t rank = static_cast<int64_t>(node.input(0)->type().shape.size());
  auto axes = reducedAxes(node, rank);
  if (!axes) return false;
  std::vector<int64_t> spatial;
  for (int64_t i = 2; i < rank; ++i) spatial.push_back(i);
  return *axes == spatial;
}

bool isGlobalAveragePool(const ir::Node& node) {
  if (!isSpatialF32(node.input(0)) || node.numOutputs() != 1) return false;
  const rt::Shape& in = node.input(0)->type().shape;
  const auto& a = node.attrs();
  std::vector<int64_t> kernel = a.getInts("kernel_shape", {});
  std::vector<int64_t> spatial(in.begin() + 2, in.end());
  if (kernel != spatial) return false;
  for (int64_t p : a.getInts("pads", {}))
    if (p != 0) return false;
  if (a.getString("auto_pad", "NOTSET") != "NOTSET" && a.getString("auto_pad", "NOTSET") != "VALID") return false;
  // With one window position, strides do not matter; the output must be [N, C, 1, ...].
  const rt::Shape& out = node.output(0)->type().shape;
  return std::all_of(out.begin() + 2, out.end(), [](int64_t d) { return d == 1; });
}

}  // namespace

bool canonicalizePooling(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node* node : graph.nodes()) {
    if (!node->domain().empty()) continue;
    bool mean = node->op() == "ReduceMean" && isGlobalMean(*node);
    bool pool = node->op() == "AveragePool" && isGlobalAveragePool(*node);
    if (!mean && !pool) continue;
    ir::Node* gap = graph.insertNodeBefore(node, "GlobalAveragePool", {node->input(0)}, 1, {},
                                           graph.uniqueName(node->name() + "_gap"));
    detail::inferNodeTypes(*gap);
    ir::Value* result = gap->output(0);
    if (mean && node->attrs().getInt("keepdims", 1) == 0) {
      rt::AttributeMap attrs;
      attrs.set("axis", int64_t{1});
      ir::Node* flatten = graph.insertNodeBefore(node, "Flatten", {result}, 1, std::move(attrs),
                                                 graph.uniqueName(node->name() + "_flatten"));
      detail::inferNodeTypes(*flatten);
      result = flatten->output(0);
    }
    detail::replaceValue(graph, node->output(0), result);
    graph.removeNode(node);
    changed = true;
  }
  return changed;
}

}  // namespace vdla::passes
