// Stage "qlinear-to-qconv": a model quantised elsewhere keeps its own
// parameters; its integer convolutions and dense layers become vdla.QConv,
// which both the accelerator and the CPU back end compile as int8 code.
#include "vdla/compiler/quant/qlinear_to_qconv.h"

#include "vdla/compiler/stages.h"

namespace vdla {

TargetStage stages::qlinearToQConv(QLinearRequant requant) {
  return {"qlinear-to-qconv", StageKind::Graph, StagePhase::Quantize, [requant](TargetState& s) {
            if (!quant::hasQLinearOperators(s.graph)) return false;
            // The float form (onnxruntime's, bit for bit) wherever the code
            // that runs it has it: the CPU always, the accelerator with FREQ.
            const bool float_form = requant == QLinearRequant::Float || s.config.float_requant;
            s.report.qlinear = quant::convertQLinearToQConv(
                s.graph, float_form ? quant::RequantForm::Float : quant::RequantForm::Integer);
            s.report.converted_qlinear = true;
            return true;
          }};
}

}  // namespace vdla
