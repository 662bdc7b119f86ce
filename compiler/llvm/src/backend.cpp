// Target "llvm" in the compile driver: the JIT when compiling to run in
// process, a shared library when the artifact is to be saved; and the CPU
// fallback of target "vdla" (cpu_fallback.cpp).
#include "vdla/compiler/compile.h"
#include "vdla/compiler/llvm/cpu_backend.h"

namespace vdla::cpu {

void registerCpuFallback();

void registerLlvmTarget() {
  registerCpuFallback();
  registerTargetLowering("llvm", [](const ir::Graph& graph, const CompileOptions& options, CompileReport& report) {
    if (!options.llvm_library_cpu.empty()) return compileShared(graph, CpuTarget::named(options.llvm_library_cpu));
    JitProgram program = compileJit(graph);
    report.kernels = program.kernels;
    return std::move(program.artifact);
  });
}

}  // namespace vdla::cpu
