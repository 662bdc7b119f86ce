#include "vdla/explore/design_point.h"

#include <memory>
#include <stdexcept>

#include "vdla/compiler/accel/expanded_depthwise.h"
#include "vdla/compiler/accel/fuse_additions.h"
#include "vdla/compiler/accel/layer_form.h"
#include "vdla/hw/board_host.h"
#include "vdla/runtime/accel/packed_layout.h"

namespace vdla::explore {

double hostHandoffMs(const accel::LayerForm& form, const hw::HwConfig& cfg) {
  const std::optional<hw::BoardHost> host = hw::boardHost(cfg);
  if (!host) return 0;
  const accel::ConvLayer& L = form.layer;
  double ms = L.host.identity() ? 0.0 : form.host_cycles / (cfg.clock_mhz * 1e3);
  const int64_t y_block = accel::outputInterleave(L, cfg) * cfg.block_out;
  if (y_block != int64_t(cfg.block_in)) {
    const rt::Shape y{L.n, L.o, L.oh, L.ow};
    const double data = double(L.n * L.o * L.oh * L.ow);
    const double down = double(rt::accel::packedGeometry(y, cfg.batch, y_block).bytes());
    const double up = double(rt::accel::packedGeometry(y, cfg.batch, cfg.block_in).bytes());
    ms += 1e3 * host->seconds(down * host->unpack_per_byte + data * host->pack_per_byte + up * host->upload_per_byte);
  }
  return ms;
}

PointResult evaluateDesignPoint(const DesignPoint& point, const std::vector<NetworkWorkload>& networks,
                                const ResourceModel& model, const FpgaPart& part) {
  PointResult r;
  r.point = point;
  r.resources = model.estimate(point.config, part.family);
  r.why_not_fits = whyNotFits(r.resources, part);
  r.complete = true;
  const hw::HwConfig& cfg = point.config;
  for (const NetworkWorkload& w : networks) {
    NetworkResult n;
    n.network = w.name;
    n.layers_total = static_cast<int>(w.layers.size() + w.pools.size() + w.adds.size() + w.global_pools.size());
    int64_t macs = 0;
    std::vector<bool> layer_fits(w.layers.size(), false), add_fits(w.adds.size(), false);
    // Per layer: its estimate, whether it reads its input as the host gave
    // it (no transform) and whether its output keeps the input packing.
    std::vector<accel::CostEstimate> estimates(w.layers.size());
    std::vector<bool> untransformed(w.layers.size(), false), same_packing(w.layers.size(), false);
    for (size_t i = 0; i < w.layers.size(); ++i) {
      const accel::ConvLayer& layer = w.layers[i];
      try {
        const accel::LayerForm form = accel::chooseLayerForm(layer, cfg, point.latency_hiding, /*allow_im2col=*/true,
                                                             /*allow_unfold=*/true, w.input_on_device.at(i));
        layer_fits[i] = true;
        estimates[i] = form.estimate;
        untransformed[i] = form.layer.host.identity();
        same_packing[i] = accel::outputInterleave(form.layer, cfg) * int64_t(cfg.block_out) == int64_t(cfg.block_in);
        n.cycles += form.estimate.cycles;
        n.host_ms += hostHandoffMs(form, cfg);
        macs += layer.macs();
        ++n.layers_offloaded;
      } catch (const accel::DoesNotFit& e) {
        // No tiling fits the buffers: the layer would run on the CPU, so this
        // point cannot be compared on accelerator latency. (Anything else is
        // an internal error and stops the sweep.)
        if (n.why_incomplete.empty()) n.why_incomplete = e.what();
      }
    }
    std::vector<bool> add_fused(w.adds.size(), false);
    std::vector<size_t> fused_into(w.adds.size(), SIZE_MAX);  // the convolution each fused into
    // The layers without MACs: their cycles count.
    auto addOther = [&](auto&& choose) {
      try {
        accel::CostEstimate e;
        choose(&e);
        n.cycles += e.cycles;
        ++n.layers_offloaded;
        return true;
      } catch (const accel::DoesNotFit& e) {
        if (n.why_incomplete.empty()) n.why_incomplete = e.what();
        return false;
      }
    };
    for (const accel::PoolLayer& pool : w.pools)
      addOther([&](accel::CostEstimate* e) { accel::choosePoolTiling(pool, cfg, point.latency_hiding, e); });
    for (size_t i = 0; i < w.adds.size(); ++i)
      add_fits[i] =
          addOther([&](accel::CostEstimate* e) { accel::chooseAddTiling(w.adds[i], cfg, point.latency_hiding, e); });
    // Additions fused into their convolutions where the compiler would fuse
    // them on this config (decided with latency hiding on, as its stage does):
    // the fused layer's cycles replace the two layers'.
    for (const NetworkWorkload::Fusible& f : w.fusible) {
      const accel::ConvLayer& conv = w.layers[f.layer];
      if (add_fused[f.add] || !layer_fits[f.layer] || !add_fits[f.add] || (conv.float_requant && !cfg.float_requant))
        continue;
      accel::AccelOptions o;
      const std::optional<accel::FusionCost> decided = accel::fusionCost(conv, w.adds[f.add], f.conv_is_a, cfg, o);
      if (!decided || !accel::fusionPays(*decided)) continue;
      add_fused[f.add] = true;
      fused_into[f.add] = f.layer;
      o.latency_hiding = point.latency_hiding;
      const std::optional<accel::FusionCost> c =
          point.latency_hiding ? decided : accel::fusionCost(conv, w.adds[f.add], f.conv_is_a, cfg, o);
      if (c) {
        n.cycles += c->fused - c->separate;
        estimates[f.layer] = c->fused_estimate;
      }
      // One layer where the compiler's report has one.
      --n.layers_total;
      --n.layers_offloaded;
    }
    // Expansions fused into their depthwise layers where the compiler would
    // fuse them on this config (decided with latency hiding on, as its stage
    // does): the fused program's cycles replace the two layers', and a chain
    // into the expansion now runs into the fused layer.
    std::vector<size_t> runs_as(w.layers.size());
    for (size_t i = 0; i < runs_as.size(); ++i) runs_as[i] = i;
    for (const NetworkWorkload::Expandable& x : w.expandable) {
      const accel::ConvLayer &E = w.layers[x.expansion], &D = w.layers[x.depthwise];
      if (!cfg.inp_writeback || !layer_fits[x.expansion] || !layer_fits[x.depthwise] ||
          (E.float_requant && !cfg.float_requant) || (D.float_requant && !cfg.float_requant) ||
          !accel::whyNoExpandedDepthwise(E, D, cfg).empty())
        continue;
      accel::ConvLayer F = D;
      F.expansion = std::make_shared<const accel::ConvLayer>(E);
      try {
        auto cycles = [&](const accel::ConvLayer& L, bool lh) {
          return accel::chooseLayerForm(L, cfg, lh, /*allow_im2col=*/true, /*allow_unfold=*/true).estimate;
        };
        if (!(cycles(F, true).cycles < cycles(E, true).cycles + cycles(D, true).cycles)) continue;
        const accel::CostEstimate fused = cycles(F, point.latency_hiding);
        n.cycles += fused.cycles - estimates[x.expansion].cycles - estimates[x.depthwise].cycles;
        estimates[x.depthwise] = fused;
        runs_as[x.expansion] = x.depthwise;
        --n.layers_total;
        --n.layers_offloaded;
      } catch (const accel::DoesNotFit&) {
        continue;  // the pair stays apart, as the compiler keeps it
      }
    }
    // Program chains: where the first layer's output keeps the packing the
    // layers read (the tensors stay on the device) and the second's input
    // needs no host work, the compiler chains the two, and the second's
    // first loads overlap the first's last store (with the fused layers'
    // estimates; a pair with an addition between them where it fused into
    // the first).
    for (const NetworkWorkload::Chained& c : w.chained) {
      const size_t first = runs_as[c.first], second = runs_as[c.second];
      if (first == second) continue;  // an expansion and its depthwise layer: one program now
      if (layer_fits[first] && layer_fits[second] && untransformed[second] && same_packing[first] &&
          (c.across_add < 0 || fused_into[size_t(c.across_add)] == c.first))
        n.cycles -= accel::chainOverlapCycles(estimates[first], estimates[second]);
    }
    for (const accel::GlobalPoolLayer& pool : w.global_pools)
      addOther([&](accel::CostEstimate* e) { accel::chooseGlobalPoolTiling(pool, cfg, point.latency_hiding, e); });
    n.ideal_cycles = double(macs) / double(cfg.macsPerCycle());
    n.latency_ms = n.cycles / (cfg.clock_mhz * 1e3);
    n.mac_utilisation = n.cycles > 0 ? n.ideal_cycles / n.cycles : 0;
    r.complete = r.complete && n.why_incomplete.empty();
    r.latency_ms += n.latency_ms;
    r.host_ms += n.host_ms;
    r.networks.push_back(n);
  }
  return r;
}

Objective parseObjective(const std::string& name) {
  if (name == "accelerator") return Objective::Accelerator;
  if (name == "end-to-end") return Objective::EndToEnd;
  throw std::invalid_argument("objective '" + name + "': expected 'accelerator' or 'end-to-end'");
}

const char* objectiveName(Objective o) { return o == Objective::EndToEnd ? "end-to-end" : "accelerator"; }

std::string designPointKey(const DesignPoint& point, const std::vector<NetworkWorkload>& networks,
                           const ResourceModel& model) {
  std::string key = point.config.hashHex() + (point.latency_hiding ? "/lh" : "/nolh");
  for (const NetworkWorkload& w : networks)
    key += "/" + w.name + ":" + std::to_string(w.layers.size()) + "+" + std::to_string(w.pools.size()) + "+" +
           std::to_string(w.adds.size()) + "+" + std::to_string(w.global_pools.size()) + "+" +
           std::to_string(w.fusible.size()) + ":" + std::to_string(w.macs);
  return key + "/" + model.fingerprint() + "/" + VDLA_EVALUATION_FINGERPRINT;
}

}  // namespace vdla::explore
