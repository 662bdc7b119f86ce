// Stage "accel-lower": the quantised graph to an accelerator artifact.
// Partitioning, tiling, code generation and the token check share one
// layer-by-layer plan inside lowerForAccelerator (the arena placement of a
// layer depends on its neighbours' partitioning), so they run as one stage.
#include "vdla/compiler/accel/lower.h"

#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::accelLower() {
  return {"accel-lower", StageKind::Artifact, StagePhase::Lowering, [](TargetState& s) {
            s.report.layers.clear();
            s.artifact = accel::lowerForAccelerator(s.graph, s.config, s.options.accel, &s.report.layers);
            return true;
          }};
}

}  // namespace vdla
