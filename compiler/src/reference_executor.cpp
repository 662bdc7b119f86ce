#include "vdla/compiler/reference_executor.h"

#include <stdexcept>
#include <unordered_map>

#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla {

std::vector<rt::Tensor> runReference(const ir::Graph& graph, const std::vector<rt::Tensor>& inputs,
                                     const ReferenceRunOptions& options) {
  auto& registry = rt::KernelRegistry::global();
  rt::registerReferenceKernels(registry);
  if (inputs.size() != graph.inputs().size())
    throw std::invalid_argument("graph '" + graph.name + "' takes " + std::to_string(graph.inputs().size()) +
                                " inputs, got " + std::to_string(inputs.size()));
  std::unordered_map<const ir::Value*, rt::Tensor> env;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ir::Value* v = graph.inputs()[i];
    if (inputs[i].type() != v->type())
      throw std::invalid_argument("input '" + v->name() + "' expects " + v->type().toString() + ", got " +
                                  inputs[i].type().toString());
    env[v] = inputs[i];
  }
  for (const ir::Value* c : graph.constants()) env[c] = c->constant();

  // Free intermediate tensors after their last reader so that ResNet-50 fits easily.
  std::unordered_map<const ir::Value*, size_t> remaining_reads;
  for (const ir::Node* node : graph.nodes())
    for (const ir::Value* in : node->inputs())
      if (in) ++remaining_reads[in];

  for (const ir::Node* node : graph.nodes()) {
    const rt::KernelFn* kernel = registry.find(rt::referenceKernelName(node->qualifiedOp()));
    if (!kernel) throw std::runtime_error(node->describe() + ": no reference kernel for this operator");
    rt::KernelArgs args;
    args.attrs = &node->attrs();
    for (const ir::Value* in : node->inputs()) {
      if (!in) {
        args.inputs.push_back(nullptr);
        continue;
      }
      auto it = env.find(in);
      if (it == env.end()) throw std::runtime_error(node->describe() + ": input '" + in->name() + "' was not computed");
      args.inputs.push_back(&it->second);
    }
    std::vector<rt::Tensor> outputs;
    outputs.reserve(node->numOutputs());
    for (const ir::Value* out : node->outputs()) outputs.emplace_back(out->type());
    for (auto& t : outputs) args.outputs.push_back(&t);
    try {
      (*kernel)(args);
    } catch (const std::exception& e) {
      throw std::runtime_error(node->describe() + ": " + e.what());
    }
    if (options.on_node) options.on_node(*node, outputs);
    for (size_t i = 0; i < outputs.size(); ++i) env[node->output(i)] = std::move(outputs[i]);
    for (const ir::Value* in : node->inputs())
      if (in && --remaining_reads[in] == 0 && !graph.isGraphOutput(in) && !in->isConstant()) env.erase(in);
  }
  std::vector<rt::Tensor> results;
  for (const ir::Value* out : graph.outputs()) {
    auto it = env.find(out);
    if (it == env.end()) throw std::runtime_error("graph output '" + out->name() + "' was not computed");
    results.push_back(it->second);
  }
  return results;
}

}  // namespace vdla
