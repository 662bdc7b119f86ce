// Stage "cpu-fallback" of target "vdla": the steps that the accelerator back end
// leaves on the CPU (kernels "ref.*") are compiled by this back end into one
// module, step by step; a node it cannot compile keeps its reference kernel
// and the reason goes into its layer decision. The code is JIT'ed for this
// process (CompileReport::kernels) or linked into the artifact's "llvm.so"
// for the CPU named by CompileOptions::llvm_library_cpu (the board's ARM
// core), so that the runtime loads it next to the accelerator programs.
#include <unordered_map>

#include "lower.h"
#include "target.h"
#include "vdla/compiler/llvm/llvm_stages.h"
#include "vdla/runtime/native/native_library.h"

namespace vdla::cpu {

namespace {

// Drops constant tensors that no step reads any more (the weights of a step
// whose code now holds a packed copy) and renumbers the rest.
void pruneUnreadConstants(rt::Artifact& a) {
  std::vector<char> read(a.tensors.size(), 0);
  for (const rt::ArtifactStep& step : a.steps)
    for (int32_t id : step.inputs)
      if (id >= 0) read[id] = 1;
  for (int32_t id : a.inputs) read[id] = 1;
  for (int32_t id : a.outputs) read[id] = 1;
  std::vector<int32_t> remap(a.tensors.size(), -1);
  std::vector<rt::ArtifactTensor> kept;
  for (size_t id = 0; id < a.tensors.size(); ++id) {
    if (a.tensors[id].isConstant() && !read[id]) continue;
    remap[id] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(a.tensors[id]));
  }
  auto apply = [&](std::vector<int32_t>& ids) {
    for (int32_t& id : ids)
      if (id >= 0) id = remap[id];
  };
  for (rt::ArtifactStep& step : a.steps) {
    apply(step.inputs);
    apply(step.outputs);
  }
  apply(a.inputs);
  apply(a.outputs);
  a.tensors = std::move(kept);
}

// Returns whether any step got generated code.
bool compileCpuSteps(const ir::Graph& graph, rt::Artifact& a, const CompileOptions& options, CompileReport& report) {
  std::unordered_map<std::string, const ir::Node*> nodes;
  for (const ir::Node* n : graph.nodes()) nodes.emplace(n->name(), n);
  std::unordered_map<std::string, int32_t> tensor_ids;
  for (size_t id = 0; id < a.tensors.size(); ++id) tensor_ids.emplace(a.tensors[id].name, static_cast<int32_t>(id));
  auto idOf = [&](const ir::Value* v) -> int32_t {
    auto it = tensor_ids.find(v->name());
    if (it == tensor_ids.end())
      throw std::logic_error("CPU fallback: value '" + v->name() + "' is not in the artifact");
    return it->second;
  };

  const CpuTarget target =
      options.llvm_library_cpu.empty() ? CpuTarget::host() : CpuTarget::named(options.llvm_library_cpu);
  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(target);
  LoweredModule lowered = newModule(graph.name, *machine);
  StepEmitter emitter(*lowered.module, tuningFor(*machine));
  // The report's decision of each step's node, by name (a node folded into
  // another step has no step of its own).
  std::unordered_map<std::string, size_t> decision_of;
  for (size_t i = 0; i < report.layers.size(); ++i) decision_of.emplace(report.layers[i].name, i);
  auto decision = [&](const std::string& name) -> decltype(report.layers.data()) {
    auto it = decision_of.find(name);
    return it == decision_of.end() ? nullptr : &report.layers[it->second];
  };
  size_t compiled = 0;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    rt::ArtifactStep& step = a.steps[i];
    if (step.kernel.rfind("ref.", 0) != 0) continue;
    auto node = nodes.find(step.name);
    if (node == nodes.end()) continue;
    try {
      rt::ArtifactStep generated =
          emitNodeStep(*node->second, nullptr, nullptr, emitter, "vdla_cpu_step_" + std::to_string(i), a, idOf);
      generated.name = step.name;
      step = std::move(generated);
      ++compiled;
      if (auto* d = decision(step.name)) d->cpu_code = "llvm";
    } catch (const std::runtime_error& e) {
      if (auto* d = decision(step.name)) d->cpu_reason = e.what();
    }
  }
  if (compiled == 0) return false;
  finishModule(*lowered.module, *machine);
  pruneUnreadConstants(a);
  a.metadata["llvm.triple"] = machine->getTargetTriple().str();
  a.metadata["llvm.cpu"] = machine->getTargetCPU().str();
  if (options.llvm_library_cpu.empty())
    report.kernels = jitKernels(std::move(lowered), a);
  else
    a.blobs[rt::native::kNativeLibraryBlob] = linkSharedLibrary(*lowered.module, *machine);
  a.validate("CPU steps of graph '" + graph.name + "'");
  return true;
}

}  // namespace

TargetStage cpuFallbackStage() {
  return {"cpu-fallback", StageKind::Artifact, StagePhase::Lowering, [](TargetState& s) {
            if (!s.options.llvm_cpu_fallback) return false;
            if (!s.artifact) throw std::logic_error("there is no artifact yet to compile the CPU steps of");
            return compileCpuSteps(s.graph, *s.artifact, s.options, s.report);
          }};
}

}  // namespace vdla::cpu
