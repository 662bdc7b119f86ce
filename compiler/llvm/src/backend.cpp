// Stage "llvm-codegen" of target "llvm": the JIT when compiling to run in
// process, a shared library when the artifact is to be saved.
#include "vdla/compiler/llvm/cpu_backend.h"
#include "vdla/compiler/llvm/llvm_stages.h"

namespace vdla::cpu {

TargetStage llvmCodegenStage() {
  return {"llvm-codegen", StageKind::Artifact, StagePhase::Lowering, [](TargetState& s) {
            if (!s.options.llvm_library_cpu.empty()) {
              s.artifact = compileShared(s.graph, CpuTarget::named(s.options.llvm_library_cpu));
            } else {
              JitProgram program = compileJit(s.graph);
              s.report.kernels = program.kernels;
              s.artifact = std::move(program.artifact);
            }
            return true;
          }};
}

}  // namespace vdla::cpu
