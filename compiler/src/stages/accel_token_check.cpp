// Stage "accel-token-check": the static proof that no program of the
// artifact's device module can deadlock on dependency tokens. It reads the
// programs back from the serialised module, so it checks what the device
// will run; a failure names the program and its layer and fails the compile.
#include <stdexcept>

#include "vdla/compiler/accel/lowering.h"
#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::accelTokenCheck() {
  TargetStage stage;
  stage.name = "accel-token-check";
  stage.kind = StageKind::Artifact;
  stage.run = [](TargetState& s) {
    if (!s.artifact) throw std::logic_error("there is no artifact yet to check the programs of");
    // The proofs are kept in the plan to be printed; an artifact given
    // without one (a test of this stage alone) gets an empty plan.
    if (!s.plan.has_value()) s.plan = accel::AccelLowering{};
    s.planAs<accel::AccelLowering>().tokens = accel::checkArtifactTokens(*s.artifact, s.config);
    return false;  // a check: the artifact is as it was
  };
  stage.print = [](std::ostream& out, const TargetState& s) {
    accel::printProgramTokens(out, s.planAs<accel::AccelLowering>().tokens);
  };
  return stage;
}

}  // namespace vdla
