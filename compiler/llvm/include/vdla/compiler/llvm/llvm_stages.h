// The CPU back end's target stages (see vdla/compiler/target.h); the target
// table (vdla/compiler/target_registry.h) puts them into targets "llvm" and
// "vdla".
#pragma once

#include "vdla/compiler/target.h"

namespace vdla::cpu {

// "llvm-codegen" (artifact): the whole graph as generated code, JIT'ed in
// process (CompileReport::kernels runs it) or, with
// CompileOptions::llvm_library_cpu, a shared library inside the artifact.
TargetStage llvmCodegenStage();

// "cpu-fallback" (artifact): the steps an accelerator artifact leaves on the
// CPU get generated code instead of their reference kernels (off with
// CompileOptions::llvm_cpu_fallback); a step whose operator the back end
// cannot compile keeps its reference kernel, the reason in its layer decision.
TargetStage cpuFallbackStage();

}  // namespace vdla::cpu
