// LLVM target set-up shared by the JIT and ahead-of-time paths: target
// machines for a CpuTarget, the register blocking that suits its vector
// unit, the optimisation pipeline and object emission.
#pragma once

#include <memory>
#include <vector>

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "emitter.h"
#include "vdla/compiler/llvm/cpu_backend.h"

namespace vdla::cpu {

void initializeLlvm();
// Position-independent code (shared libraries and the JIT alike).
std::unique_ptr<llvm::TargetMachine> createTargetMachine(const CpuTarget& target);
TargetTuning tuningFor(const llvm::TargetMachine& machine);
// The O3 pipeline for the target machine's CPU.
void optimizeModule(llvm::Module& module, llvm::TargetMachine& machine);
std::vector<uint8_t> emitObject(llvm::Module& module, llvm::TargetMachine& machine);

}  // namespace vdla::cpu
