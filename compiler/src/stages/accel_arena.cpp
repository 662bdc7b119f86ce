// Stage "accel-arena": which activations stay on the device between
// offloaded layers, and the place of every packed tensor in the activation
// arena, into the vdla target's plan.
#include "vdla/compiler/accel/lowering.h"
#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::accelArena() {
  TargetStage stage;
  stage.name = "accel-arena";
  stage.kind = StageKind::Plan;
  stage.run = [](TargetState& s) {
    accel::planActivationArena(s.graph, s.config, s.planAs<accel::AccelLowering>());
    return true;
  };
  stage.print = [](std::ostream& out, const TargetState& s) {
    accel::printArena(out, s.planAs<accel::AccelLowering>());
  };
  stage.verify = [](const TargetState& s) { accel::verifyArena(s.planAs<accel::AccelLowering>()); };
  return stage;
}

}  // namespace vdla
