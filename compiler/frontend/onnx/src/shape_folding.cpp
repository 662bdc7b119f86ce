#include "shape_folding.h"

#include <algorithm>

#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::frontend::detail {

namespace {

// Larger integer tensors are data, not shapes; they stay for the compiler's
// constant folding (which has its own size policy).
constexpr int64_t kMaxFoldedElements = 4096;

// Shape computations are integer vectors, and the masks that select among
// them (Equal feeding Where, as exporters write -1 placeholders).
bool isShapeComputationType(rt::DType d) { return d == rt::DType::I64 || d == rt::DType::I32 || d == rt::DType::Bool; }

rt::Tensor shapeOf(const ir::Node& node) {
  const rt::Shape& dims = node.input(0)->type().shape;
  const int64_t rank = static_cast<int64_t>(dims.size());
  auto clamp = [&](int64_t axis) { return std::clamp(axis < 0 ? axis + rank : axis, int64_t{0}, rank); };
  int64_t start = clamp(node.attrs().getInt("start", 0));
  int64_t end = clamp(node.attrs().getInt("end", rank));
  std::vector<int64_t> values;
  for (int64_t i = start; i < end; ++i) values.push_back(dims[static_cast<size_t>(i)]);
  return rt::Tensor::fromVector<int64_t>({static_cast<int64_t>(values.size())}, values);
}

}  // namespace

bool foldShapeComputation(ir::Graph& graph, ir::Node* node, std::vector<ir::Value*>* replacements) {
  std::vector<rt::Tensor> results;
  if (node->domain().empty() && node->op() == "Shape") {
    results.push_back(shapeOf(*node));
  } else {
    for (const ir::Value* in : node->inputs())
      if (in && !in->isConstant()) return false;
    for (const ir::Value* out : node->outputs())
      if (!isShapeComputationType(out->type().dtype) || out->type().numElements() > kMaxFoldedElements) return false;
    auto& registry = rt::KernelRegistry::global();
    rt::registerReferenceKernels(registry);
    const rt::KernelFn* kernel = registry.find(rt::referenceKernelName(node->qualifiedOp()));
    if (!kernel) return false;
    rt::KernelArgs args;
    args.attrs = &node->attrs();
    for (const ir::Value* in : node->inputs()) args.inputs.push_back(in ? &in->constant() : nullptr);
    for (const ir::Value* out : node->outputs()) results.emplace_back(out->type());
    for (auto& t : results) args.outputs.push_back(&t);
    (*kernel)(args);
  }
  replacements->clear();
  for (size_t i = 0; i < results.size(); ++i) {
    std::string name = node->output(i)->name();
    ir::Value* constant = graph.addConstant(graph.uniqueName(name + "_folded"), std::move(results[i]));
    graph.replaceAllUsesWith(node->output(i), constant);
    replacements->push_back(constant);
  }
  graph.removeNode(node, /*sweep_values=*/false);
  return true;
}

}  // namespace vdla::frontend::detail
