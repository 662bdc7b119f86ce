#include "vdla/compiler/accel/layer_form.h"

#include <stdexcept>
#include <string>

namespace vdla::accel {

LayerForm chooseLayerForm(const ConvLayer& direct, const hw::HwConfig& cfg, bool latency_hiding, bool allow_im2col) {
  LayerForm form;
  std::string direct_error;
  try {
    form.plan = chooseTiling(direct, cfg, latency_hiding, &form.estimate);
  } catch (const DoesNotFit& e) {
    direct_error = e.what();
  }
  if (allow_im2col && direct.c < int64_t(cfg.block_in) && direct.kh * direct.kw > 1) {
    ConvLayer folded = toIm2colLayer(direct);
    try {
      CostEstimate folded_estimate;
      const TilePlan folded_plan = chooseTiling(folded, cfg, latency_hiding, &folded_estimate);
      if (!direct_error.empty() || folded_estimate.cycles < form.estimate.cycles) {
        form.layer = std::move(folded);
        form.plan = folded_plan;
        form.estimate = folded_estimate;
        form.im2col = true;
        return form;
      }
    } catch (const DoesNotFit& e) {
      // No tiling of the im2col form fits: the direct form stands, or the
      // direct form's reason is reported below.
      if (!direct_error.empty()) direct_error += "; its im2col form: " + std::string(e.what());
    }
  }
  if (!direct_error.empty()) throw DoesNotFit(direct_error);
  form.layer = direct;
  return form;
}

}  // namespace vdla::accel
