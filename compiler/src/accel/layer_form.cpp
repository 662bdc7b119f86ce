#include "vdla/compiler/accel/layer_form.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/compiler/accel/expanded_depthwise.h"
#include "vdla/hw/board_host.h"
#include "vdla/runtime/accel/packed_layout.h"

namespace vdla::accel {

namespace {

// The board host's work to pack the form's input, transformed or not, in
// accelerator cycles.
double hostInputCycles(const LayerForm& f, const hw::HwConfig& cfg) {
  const std::optional<hw::BoardHost> host = hw::boardHost(cfg);
  if (!host) return 0;
  const ConvLayer& L = f.layer;
  const rt::Shape shape{L.n, L.c, L.h, L.w};
  const double copied = double(rt::accel::unfoldCopiedBytes(shape, L.host, cfg.block_in));
  const double data = double(L.n * L.c * L.h * L.w) - copied;
  const double packed = double(rt::accel::packedGeometry(shape, cfg.batch, cfg.block_in).bytes());
  return host->seconds(data * host->pack_per_byte + copied * host->unfold_per_byte + packed * host->upload_per_byte) *
         cfg.clock_mhz * 1e6;
}

}  // namespace

LayerForm chooseLayerForm(const ConvLayer& direct, const hw::HwConfig& cfg, bool latency_hiding, bool allow_im2col,
                          bool allow_unfold, bool input_on_device) {
  if (direct.expansion) {
    // A fused expansion has one form: the bands of expanded_depthwise.h,
    // over the expansion's input as it is.
    LayerForm f;
    f.layer = direct;
    f.plan = chooseExpandedTiling(direct, cfg, latency_hiding, &f.estimate);
    LayerForm input;
    input.layer = *direct.expansion;
    f.host_cycles = hostInputCycles(input, cfg);
    return f;
  }
  // The forms worth trying: as it is; for few input channels and a window
  // larger than 1x1, space-to-depth (strided layers) and im2col (when allowed).
  std::vector<LayerForm> candidates(1);
  candidates[0].layer = direct;
  const bool few_channels = !input_on_device && direct.c < int64_t(cfg.block_in) && direct.kh * direct.kw > 1;
  // A column unfold: u columns of the layer's channels per input entry, so
  // that a kernel row takes ceil(KW/u) GEMMs instead of KW.
  auto addUnfolded = [&](const ConvLayer& layer, bool space_to_depth) {
    const int64_t u = allow_unfold ? columnUnfoldOf(layer, cfg) : 1;
    if (u < 2) return;
    candidates.emplace_back();
    candidates.back().layer = toColumnUnfoldedLayer(layer, u);
    candidates.back().space_to_depth = space_to_depth;
    candidates.back().unfold_columns = u;
  };
  if (few_channels) addUnfolded(direct, false);
  if (few_channels && hasSpaceToDepthForm(direct)) {
    const ConvLayer s2d = toSpaceToDepthLayer(direct);
    candidates.emplace_back();
    candidates.back().layer = s2d;
    candidates.back().space_to_depth = true;
    addUnfolded(s2d, true);
  }
  // im2col of a grouped layer would mix the groups' channels into one reduction.
  if (few_channels && allow_im2col && direct.group == 1) {
    candidates.emplace_back();
    candidates.back().layer = toIm2colLayer(direct);
    candidates.back().im2col = true;
  }
  // The cheapest that fits; the direct form's reason (and the others') when none does.
  const LayerForm* best = nullptr;
  std::string why_not;
  for (LayerForm& f : candidates) {
    try {
      f.plan = chooseTiling(f.layer, cfg, latency_hiding, &f.estimate);
      f.host_cycles = hostInputCycles(f, cfg);
      auto total = [](const LayerForm& x) { return x.estimate.cycles + x.host_cycles; };
      if (!best || total(f) < total(*best)) best = &f;
    } catch (const DoesNotFit& e) {
      const char* name = f.im2col                                   ? "its im2col form: "
                         : f.space_to_depth && f.unfold_columns > 1 ? "its space-to-depth form with unfolded columns: "
                         : f.space_to_depth                         ? "its space-to-depth form: "
                         : f.unfold_columns > 1                     ? "its column-unfolded form: "
                                                                    : "";
      why_not += std::string(why_not.empty() ? "" : "; ") + name + e.what();
    }
  }
  if (!best) throw DoesNotFit(why_not);
  return *best;
}

}  // namespace vdla::accel
