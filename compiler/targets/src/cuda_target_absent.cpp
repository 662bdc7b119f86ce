// Target "cuda" in a build without the CUDA back end: listed, unavailable,
// with the reason; its stages are named as in a build that has it.
#include <stdexcept>

#include "targets.h"
#include "vdla/compiler/stages.h"

namespace vdla::targets {

namespace {

constexpr const char* kWhy =
    "this build has no CUDA back end (the CUDA toolkit with NVRTC was not found, or VDLA_WITH_CUDA=OFF)";

}  // namespace

Target cudaTarget() {
  Target t;
  t.name = "cuda";
  t.summary = "generated CUDA kernels for NVIDIA GPUs";
  t.available = false;
  t.unavailable_reason = kWhy;
  TargetStage lower{"cuda-lower", StageKind::Artifact, StagePhase::Lowering,
                    [](TargetState&) -> bool { throw std::runtime_error(kWhy); }};
  t.stages = {stages::refLower(), std::move(lower)};
  return t;
}

}  // namespace vdla::targets
