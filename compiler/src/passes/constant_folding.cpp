#include "vdla/compiler/passes/constant_folding.h"

#include <algorithm>
#include <stdexcept>

#include "pass_utils.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::passes {

namespace {

bool isStaticType(const ir::Value* v) {
  if (!v || !v->hasType()) return false;
  for (int64_t d : v->type().shape)
    if (d < 0) return false;
  return true;
}

// Shape and Size read only the static type of their input.
bool foldFromType(const ir::Node& node, std::vector<rt::Tensor>& results) {
  if (!node.domain().empty() || node.numInputs() != 1 || !isStaticType(node.input(0))) return false;
  const rt::Shape& shape = node.input(0)->type().shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  if (node.op() == "Shape") {
    auto clampAxis = [&](int64_t a) { return std::clamp(a < 0 ? a + rank : a, int64_t{0}, rank); };
    int64_t start = clampAxis(node.attrs().getInt("start", 0));
    int64_t end = clampAxis(node.attrs().getInt("end", rank));
    std::vector<int64_t> dims;
    for (int64_t i = start; i < end; ++i) dims.push_back(shape[static_cast<size_t>(i)]);
    results = {rt::Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims)};
    return true;
  }
  if (node.op() == "Size") {
    results = {rt::Tensor::scalar<int64_t>(rt::numElements(shape))};
    return true;
  }
  return false;
}

size_t outputBytes(const ir::Node& node) {
  size_t total = 0;
  for (const ir::Value* out : node.outputs()) total += out->type().byteSize();
  return total;
}

// Bytes of the constants that nothing but this node reads (they die with the fold).
size_t dyingInputBytes(const ir::Graph& graph, const ir::Node& node) {
  size_t total = 0;
  std::vector<const ir::Value*> seen;
  for (const ir::Value* in : node.inputs()) {
    if (!in || !in->isConstant() || graph.isGraphOutput(in)) continue;
    if (std::find(seen.begin(), seen.end(), in) != seen.end()) continue;
    seen.push_back(in);
    bool only_here = true;
    for (const ir::Node* user : graph.users(in)) only_here = only_here && user == &node;
    if (only_here) total += in->constant().byteSize();
  }
  return total;
}

}  // namespace

bool foldConstants(ir::Graph& graph, const ConstantFoldingOptions& options) {
  auto& kernels = rt::KernelRegistry::global();
  rt::registerReferenceKernels(kernels);
  bool changed = false;
  for (ir::Node* node : graph.nodes()) {
    std::vector<rt::Tensor> results;
    if (node->domain().empty() && node->op() == "Constant" && node->numInputs() == 0 && node->attrs().find("value") &&
        std::holds_alternative<rt::Tensor>(*node->attrs().find("value"))) {
      results = {node->attrs().getTensor("value")};
    } else {
      detail::inferNodeTypes(*node);
      if (options.skip_ops.count(node->qualifiedOp())) continue;
      if (!foldFromType(*node, results)) {
        bool any_input = false;
        bool all_constant = true;
        for (const ir::Value* in : node->inputs()) {
          if (!in) continue;
          any_input = true;
          all_constant = all_constant && in->isConstant();
        }
        if (!any_input || !all_constant) continue;
        const rt::KernelFn* kernel = kernels.find(rt::referenceKernelName(node->qualifiedOp()));
        if (!kernel) continue;
        bool static_outputs = true;
        for (const ir::Value* out : node->outputs()) static_outputs = static_outputs && isStaticType(out);
        if (!static_outputs) continue;
        size_t bytes = outputBytes(*node);
        if (bytes > options.max_folded_bytes && bytes > dyingInputBytes(graph, *node)) continue;

        rt::KernelArgs args;
        args.attrs = &node->attrs();
        for (const ir::Value* in : node->inputs()) args.inputs.push_back(in ? &in->constant() : nullptr);
        for (const ir::Value* out : node->outputs()) results.emplace_back(out->type());
        for (auto& t : results) args.outputs.push_back(&t);
        try {
          (*kernel)(args);
        } catch (const std::exception& e) {
          throw std::runtime_error(node->describe() + ": constant folding failed: " + e.what());
        }
      }
    }
    for (size_t i = 0; i < node->numOutputs(); ++i) {
      ir::Value* out = node->output(i);
      ir::Value* c = graph.addConstant(graph.uniqueName(out->name() + "_folded"), std::move(results.at(i)));
      // The constant takes the computed value's name: dumps stay readable.
      std::string name = out->name();
      out->setName(c->name());
      c->setName(name);
      graph.replaceAllUsesWith(out, c);
    }
    graph.removeNode(node);
    changed = true;
  }
  return changed;
}

}  // namespace vdla::passes
