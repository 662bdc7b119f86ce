// A few lines describing an artifact while it is being made: what
// --print-after-all shows after a target stage that makes or transforms one
// (the IR printer's counterpart for plans).
#pragma once

#include <ostream>

#include "vdla/runtime/artifact.h"

namespace vdla {

// Target, config, step and tensor counts, the steps per kernel (generated
// CPU code, one kernel per step, as "llvm.*"), the number of accelerator
// programs, blobs with their sizes.
void printArtifactSummary(std::ostream& out, const rt::Artifact& artifact);

}  // namespace vdla
