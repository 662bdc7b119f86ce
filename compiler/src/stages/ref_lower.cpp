// Stage "ref-lower": the reference plan, one step per node running the
// node's reference kernel ("ref.Conv") with the node's attributes. Target
// "ref" is this alone; target "cuda" rewrites the plan into kernel launches.
#include <stdexcept>
#include <unordered_map>

#include "vdla/compiler/stages.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla {

rt::Artifact lowerToArtifact(const ir::Graph& graph, const std::string& target, const std::string& hw_config_name,
                             uint64_t hw_config_hash) {
  rt::KernelRegistry& kernels = rt::KernelRegistry::global();
  rt::registerReferenceKernels(kernels);

  rt::Artifact a;
  a.target = target;
  a.model_name = graph.name;
  a.hw_config_name = hw_config_name;
  a.hw_config_hash = hw_config_hash;
  a.metadata["producer"] = "vdla compiler";

  std::unordered_map<const ir::Value*, int32_t> ids;
  auto idOf = [&](const ir::Value* v) -> int32_t {
    auto it = ids.find(v);
    if (it != ids.end()) return it->second;
    if (!v->hasType()) throw std::runtime_error("lowering: value '" + v->name() + "' has no type");
    rt::ArtifactTensor t;
    t.name = v->name();
    t.type = v->type();
    if (v->isConstant()) t.constant = v->constant();
    int32_t id = static_cast<int32_t>(a.tensors.size());
    a.tensors.push_back(std::move(t));
    ids.emplace(v, id);
    return id;
  };
  for (const ir::Value* v : graph.inputs()) a.inputs.push_back(idOf(v));
  for (const ir::Node* node : graph.nodes()) {
    rt::ArtifactStep step;
    step.kernel = rt::referenceKernelName(node->qualifiedOp());
    if (!kernels.find(step.kernel))
      throw std::runtime_error(node->describe() + ": target '" + target + "' has no kernel '" + step.kernel + "'");
    step.name = node->name();
    for (const ir::Value* in : node->inputs()) step.inputs.push_back(in ? idOf(in) : -1);
    for (const ir::Value* out : node->outputs()) step.outputs.push_back(idOf(out));
    step.attrs = node->attrs();
    a.steps.push_back(std::move(step));
  }
  for (const ir::Value* v : graph.outputs()) a.outputs.push_back(idOf(v));
  a.validate("lowering of graph '" + graph.name + "'");
  return a;
}

TargetStage stages::refLower() {
  return {"ref-lower", StageKind::Artifact, StagePhase::Lowering, [](TargetState& s) {
            s.artifact = lowerToArtifact(s.graph, "ref", s.config.name, s.config.hash);
            return true;
          }};
}

}  // namespace vdla
