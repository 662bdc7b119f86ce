// The table of compile targets: every target the compiler knows, described
// the same way (vdla/compiler/target.h: name, availability in this build and
// why not, ordered stages), in one place:
//
//   ref    ref-lower                                  reference kernels
//   vdla   qlinear-to-qconv, quantize, accel-partition,   accelerator + CPU
//          accel-arena, accel-codegen, accel-token-check,
//          cpu-fallback
//   llvm   qlinear-to-qconv, llvm-codegen             generated CPU code
//   cuda   ref-lower, cuda-lower                      generated CUDA kernels
//
// A target the build lacks (cuda without the CUDA toolkit) is still listed,
// unavailable, with the reason.
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/target.h"

namespace vdla {

// Every target, in the order above.
const std::vector<Target>& targetRegistry();
// nullptr for a name not in the table.
const Target* findTarget(const std::string& name);
// A target this build can compile for; throws std::invalid_argument for an
// unknown name and std::runtime_error, with the reason, for an unavailable one.
const Target& requireTarget(const std::string& name);

// Every target name, and whether this build can compile for it.
std::vector<std::string> compileTargets();
bool isTargetAvailable(const std::string& target);

}  // namespace vdla
