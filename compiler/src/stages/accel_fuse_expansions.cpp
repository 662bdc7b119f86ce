// Stage "accel-fuse-expansions": 1x1 expansions fused into the depthwise
// layers they feed, where the config has STORE INP and the cost model says
// one program is faster than two (accel/fuse_expansions.h).
#include "vdla/compiler/accel/fuse_expansions.h"
#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::accelFuseExpansions() {
  return {"accel-fuse-expansions", StageKind::Graph, StagePhase::Lowering, [](TargetState& s) {
            return !accel::fuseExpansionsIntoDepthwise(s.graph, s.config, s.options.accel).empty();
          }};
}

}  // namespace vdla
