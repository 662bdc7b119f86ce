// Stage "accel-codegen": the vdla target's plan to the artifact, a program
// per offloaded layer and a reference-kernel step per other node. The plan's
// decisions become the compile report's layers, which the cpu-fallback stage
// and the reports read.
#include "vdla/compiler/accel/lowering.h"
#include "vdla/compiler/artifact_summary.h"
#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::accelCodegen() {
  TargetStage stage;
  stage.name = "accel-codegen";
  stage.kind = StageKind::Artifact;
  stage.run = [](TargetState& s) {
    accel::AccelLowering& lowering = s.planAs<accel::AccelLowering>();
    s.artifact = accel::generateAccelArtifact(s.graph, s.config, s.options.accel, lowering);
    s.report.layers = lowering.decisions;
    return true;
  };
  stage.print = [](std::ostream& out, const TargetState& s) {
    printArtifactSummary(out, *s.artifact);
    accel::printChains(out, *s.artifact, s.planAs<accel::AccelLowering>());
  };
  return stage;
}

}  // namespace vdla
