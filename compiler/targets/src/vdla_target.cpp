#include "targets.h"
#include "vdla/compiler/llvm/llvm_stages.h"
#include "vdla/compiler/stages.h"

namespace vdla::targets {

Target vdlaTarget() {
  Target t;
  t.name = "vdla";
  t.summary = "the VDLA accelerator, int8, with generated CPU code for the layers it leaves";
  t.available = true;
  // A model quantised elsewhere keeps its own scales (qlinear-to-qconv); an
  // fp32 one is calibrated and quantised here; then the accelerator takes
  // what it can (additions fused into the convolutions that feed them;
  // partitioned, placed in the arena, generated, proven free of deadlock)
  // and the CPU back end compiles the rest.
  t.stages = {stages::qlinearToQConv(stages::QLinearRequant::AsAccelerator),
              stages::quantize(),
              stages::foldReshapes(),
              stages::accelFuseAdditions(),
              stages::accelFuseExpansions(),
              stages::accelPartition(),
              stages::accelArena(),
              stages::accelCodegen(),
              stages::accelTokenCheck(),
              cpu::cpuFallbackStage()};
  return t;
}

}  // namespace vdla::targets
