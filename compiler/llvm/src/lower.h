// Graph -> (artifact plan, LLVM module): one step and one generated function
// per operator, Conv followed by a residual Add fused into one step. The
// per-node part (emitNodeStep) is shared with the CPU fallback of target
// "vdla", which compiles only the steps the accelerator leaves to the CPU.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "emitter.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/llvm/cpu_backend.h"
#include "vdla/runtime/artifact.h"

namespace vdla::cpu {

struct LoweredModule {
  rt::Artifact artifact;
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
};

// An empty module for `machine` (triple and data layout set).
LoweredModule newModule(const std::string& name, const llvm::TargetMachine& machine);

// Whether the back end has an emitter for the operator (qualified name).
bool supportsOperator(const std::string& op);

// Emits `node` (with `add` folded into its epilogue when given, reading
// `residual`) as the function `symbol` and returns its artifact step (kernel
// "llvm.<symbol>"). Graph values get their tensor ids from `idOf`; constants
// the emitter derives (packed weights) are appended to `artifact`. Throws a
// std::runtime_error naming the node when it cannot be compiled; the module
// is then left without any part of the failed function.
// `depthwise`, when given, is a depthwise Conv reading the output of
// `node`, a 1x1 Conv, computed in the same step (its outputs the step's);
// `pointwise` likewise a 1x1 Conv reading the output of `node`, a
// depthwise Conv.
rt::ArtifactStep emitNodeStep(const ir::Node& node, const ir::Node* add, const ir::Value* residual,
                              StepEmitter& emitter, const std::string& symbol, rt::Artifact& artifact,
                              const std::function<int32_t(const ir::Value*)>& idOf, const ir::Node* depthwise = nullptr,
                              const ir::Node* pointwise = nullptr);

// Verifies the module (an error is a back end bug) and runs O3 for `machine`.
void finishModule(llvm::Module& module, llvm::TargetMachine& machine);

// Lowers and optimises for `machine`. Errors name the node.
LoweredModule lowerGraph(const ir::Graph& graph, llvm::TargetMachine& machine, const CpuCompileOptions& options);

// Back ends of a lowered module: code in this process (kernels bound to the
// artifact's "llvm." steps, reference kernels alongside), or a shared library
// for the machine's target (the ELF image).
std::shared_ptr<rt::KernelRegistry> jitKernels(LoweredModule lowered, const rt::Artifact& artifact);
std::vector<uint8_t> linkSharedLibrary(llvm::Module& module, llvm::TargetMachine& machine);

}  // namespace vdla::cpu
