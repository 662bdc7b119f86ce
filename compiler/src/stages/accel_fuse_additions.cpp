// Stage "accel-fuse-additions": quantised additions fused into the
// convolutions that feed them, where the accelerator runs both and the cost
// model says one layer is faster than two (accel/fuse_additions.h).
#include "vdla/compiler/accel/fuse_additions.h"
#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::accelFuseAdditions() {
  return {"accel-fuse-additions", StageKind::Graph, StagePhase::Lowering, [](TargetState& s) {
            return !accel::fuseAdditionsIntoConvolutions(s.graph, s.config, s.options.accel).empty();
          }};
}

}  // namespace vdla
