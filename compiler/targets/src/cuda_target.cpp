// Target "cuda" in a build with the CUDA back end (vdla_cuda, NVRTC).
#include "targets.h"
#include "vdla/compiler/cuda/cuda_backend.h"
#include "vdla/compiler/stages.h"

namespace vdla::targets {

Target cudaTarget() {
  Target t;
  t.name = "cuda";
  t.summary = "generated CUDA kernels for NVIDIA GPUs";
  t.available = true;
  // The CUDA back end works on the reference plan (it needs only the
  // runtime), rewriting it into kernel launches.
  TargetStage lower{"cuda-lower", StageKind::Artifact, StagePhase::Lowering, [](TargetState& s) {
                      s.artifact = cuda::lowerForCuda(*s.artifact, s.options.cuda);
                      return true;
                    }};
  t.stages = {stages::refLower(), std::move(lower)};
  return t;
}

}  // namespace vdla::targets
