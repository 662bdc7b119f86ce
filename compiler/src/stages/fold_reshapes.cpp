// Stage "fold-reshapes": the quantiser and the conversion of pre-quantised
// models give a dense layer a 4-D input again (Reshape to [N, K, 1, 1]) right
// after the Flatten that made it 2-D; on a pooled [N, K, 1, 1] tensor the two
// cancel. Removing them lets the global pooling and the classifier meet on
// the device instead of crossing to the host and back for two CPU steps.
#include "vdla/compiler/passes/simplify_reshapes.h"
#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::foldReshapes() {
  return {"fold-reshapes", StageKind::Graph, StagePhase::Quantize,
          [](TargetState& s) { return passes::foldCancellingReshapes(s.graph); }};
}

}  // namespace vdla
