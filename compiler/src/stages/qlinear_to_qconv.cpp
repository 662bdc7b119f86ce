// Stage "qlinear-to-qconv": a model quantised elsewhere keeps its own
// parameters; its integer convolutions and dense layers become vdla.QConv,
// which both the accelerator and the CPU back end compile as int8 code.
#include "vdla/compiler/quant/qlinear_to_qconv.h"

#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::qlinearToQConv() {
  return {"qlinear-to-qconv", StageKind::Graph, StagePhase::Quantize, [](TargetState& s) {
            if (!quant::hasQLinearOperators(s.graph)) return false;
            s.report.qlinear = quant::convertQLinearToQConv(s.graph);
            s.report.converted_qlinear = true;
            return true;
          }};
}

}  // namespace vdla
