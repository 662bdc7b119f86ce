// Host execution: the lowered module is compiled in process by ORC LLJIT and
// every step is bound to a kernel through the runtime's native ABI binding,
// so the ordinary Executor runs the artifact.
#include <chrono>
#include <stdexcept>

#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/Support/Error.h>

#include "lower.h"
#include "target.h"
#include "vdla/runtime/kernels/reference_kernels.h"
#include "vdla/runtime/native/native_kernels.h"

namespace vdla::cpu {

using namespace llvm;

namespace {

template <typename T>
T orThrow(Expected<T> value, const std::string& what) {
  if (!value) throw std::runtime_error(what + ": " + toString(value.takeError()));
  return std::move(*value);
}

void orThrow(Error error, const std::string& what) {
  if (error) throw std::runtime_error(what + ": " + toString(std::move(error)));
}

}  // namespace

std::shared_ptr<rt::KernelRegistry> jitKernels(LoweredModule lowered, const rt::Artifact& artifact) {
  const CpuTarget host = CpuTarget::host();
  orc::JITTargetMachineBuilder jtmb{Triple(host.triple)};
  jtmb.setCPU(host.cpu);
  SubtargetFeatures features(host.features);
  jtmb.addFeatures(features.getFeatures());
  jtmb.setCodeGenOptLevel(CodeGenOpt::Aggressive);
  std::shared_ptr<orc::LLJIT> jit(
      orThrow(orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create(), "creating the LLVM JIT"));
  // Generated code calls libm (tanhf, expf, fmaf) and memcpy from this process.
  jit->getMainJITDylib().addGenerator(
      orThrow(orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(jit->getDataLayout().getGlobalPrefix()),
              "resolving process symbols"));
  orThrow(jit->addIRModule(orc::ThreadSafeModule(std::move(lowered.module), std::move(lowered.context))),
          "adding the module to the JIT");

  rt::KernelRegistry bound;
  rt::native::registerNativeKernels(
      artifact,
      [&](const std::string& symbol) -> void* {
        auto sym = jit->lookup(symbol);
        if (!sym) {
          consumeError(sym.takeError());
          return nullptr;
        }
        return reinterpret_cast<void*>(static_cast<uintptr_t>(sym->getAddress()));
      },
      bound);
  // Every kernel holds the JIT, so the code lives as long as any kernel.
  auto kernels = std::make_shared<rt::KernelRegistry>();
  rt::registerReferenceKernels(*kernels);
  for (const std::string& name : bound.names()) {
    rt::KernelFn fn = bound.get(name);
    kernels->add(name, [fn, jit](const rt::KernelArgs& args) { fn(args); });
  }
  return kernels;
}

JitProgram compileJit(const ir::Graph& graph, const CpuCompileOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<TargetMachine> machine = createTargetMachine(CpuTarget::host());
  LoweredModule lowered = lowerGraph(graph, *machine, options);
  JitProgram program;
  program.artifact = std::move(lowered.artifact);
  program.kernels = jitKernels(std::move(lowered), program.artifact);
  program.codegen_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return program;
}

}  // namespace vdla::cpu
