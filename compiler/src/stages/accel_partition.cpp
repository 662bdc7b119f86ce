// Stage "accel-partition": where each node of the quantised graph runs, and
// the form and tiling of every convolution the accelerator takes. It starts
// the vdla target's plan (accel::AccelLowering), which the later accel-*
// stages fill in.
#include "vdla/compiler/accel/lowering.h"
#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::accelPartition() {
  TargetStage stage;
  stage.name = "accel-partition";
  stage.kind = StageKind::Plan;
  stage.run = [](TargetState& s) {
    s.plan = accel::partitionForAccelerator(s.graph, s.config, s.options.accel);
    return true;
  };
  stage.print = [](std::ostream& out, const TargetState& s) {
    accel::printPartition(out, s.planAs<accel::AccelLowering>());
  };
  stage.verify = [](const TargetState& s) { accel::verifyPartition(s.graph, s.planAs<accel::AccelLowering>()); };
  return stage;
}

}  // namespace vdla
