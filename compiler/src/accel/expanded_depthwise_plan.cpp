// The fused expansion + depthwise layer's form check, on-chip layout, cost
// estimate and band search (expanded_depthwise.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "dma_cost.h"
#include "vdla/compiler/accel/alu_sequence.h"
#include "vdla/compiler/accel/depthwise_gemm.h"
#include "vdla/compiler/accel/expanded_depthwise.h"
#include "vdla/hw/dram_timing.h"

namespace vdla::accel {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The first and one past the last image row output row `oy` reads.
std::pair<int64_t, int64_t> windowRows(const ConvLayer& D, int64_t oy) {
  const int64_t first = oy * D.sh - D.pad_top;
  return {first, first + D.kh};
}

// The image rows a band's expansion computes: its window clipped to the image.
std::pair<int64_t, int64_t> bandInputRows(const ConvLayer& D, int64_t oh0, int64_t rows) {
  return {std::max<int64_t>(0, windowRows(D, oh0).first), std::min(D.h, windowRows(D, oh0 + rows - 1).second)};
}

}  // namespace

std::string whyNoExpandedDepthwise(const ConvLayer& E, const ConvLayer& D, const hw::HwConfig& cfg) {
  if (!cfg.inp_writeback) return "config '" + cfg.name + "' has no STORE INP (extension inp_writeback)";
  if (!cfg.gemm_requant) return "config '" + cfg.name + "' has no requantising GEMM (extension gemm_requant)";
  if (cfg.batch != 1 || E.n != 1) return "batch 1 only";
  if (cfg.block_in != cfg.block_out) return "INP and OUT entries differ";
  if (E.kh != 1 || E.kw != 1 || E.sh != 1 || E.sw != 1 || E.group != 1 || E.pad_top || E.pad_left || E.pad_bottom ||
      E.pad_right || !E.host.identity())
    return "the expansion is not a 1x1, stride-1, ungrouped layer without padding";
  if (E.residual || E.post_add || D.residual || D.post_add) return "a residual on either layer";
  if (D.c != E.o || D.h != E.oh || D.w != E.ow || D.n != E.n) return "the depthwise layer does not read the expansion";
  const std::string dw = whyNoDepthwiseGemm(D, cfg);
  if (!dw.empty()) return "no DWGEMM form: " + dw;
  if (cfg.depthwiseLaneBlocks() != 1) return "lane blocks";
  if (!layerBlocks(E, cfg).gemm_requant_form) return "the expansion's requantisation is not one REQ in its GEMM";
  if (!layerBlocks(D, cfg).gemm_requant_form) return "the depthwise requantisation is not one REQ in its DWGEMM";
  return "";
}

ExpandedGeometry expandedGeometry(const ConvLayer& D, const TilePlan& plan, const hw::HwConfig& cfg) {
  ExpandedGeometry g;
  if (!D.expansion) {
    g.why_not = "no fused expansion";
    return g;
  }
  const ConvLayer& E = *D.expansion;
  g.why_not = whyNoExpandedDepthwise(E, D, cfg);
  if (!g.why_not.empty()) return g;
  const int64_t R = plan.rows;
  if (R < 1 || R > D.oh || plan.cols != D.ow) {
    g.why_not = "band outside the layer";
    return g;
  }
  g.threads = plan.threads;
  g.cin_blocks = ceilDiv(E.c, cfg.block_in);
  g.blocks = outputBlocks(D, cfg);
  g.bands = ceilDiv(D.oh, R);
  // The copied rows' columns: as a DWGEMM tile of the whole width reads them.
  const int64_t col0 = -D.pad_left, col_end = col0 + (D.ow - 1) * D.sw + D.spanW();
  g.left = std::max<int64_t>(0, -col0);
  g.right = std::max<int64_t>(0, col_end - D.w);
  g.run = col_end - col0;
  // (A strided layer may leave image columns unread past the run: the row
  // still holds them, or they would overwrite the next row's padding.)
  g.pitch = std::max(g.run, g.left + D.w + g.right);
  g.rows_window = (R - 1) * D.sh + D.kh;
  for (int64_t b = 0; b < g.bands; ++b) {
    const auto [lo, hi] = bandInputRows(D, b * R, std::min(R, D.oh - b * R));
    g.rows_in_max = std::max(g.rows_in_max, hi - lo);
  }
  // Kernel rows that output rows at the top and bottom skip.
  g.skipped.push_back({});
  g.row_variant.assign(size_t(D.oh), 0);
  for (int64_t oy = 0; oy < D.oh; ++oy) {
    std::vector<int64_t> skip;
    for (int64_t ky = 0; ky < D.kh; ++ky) {
      const int64_t iy = windowRows(D, oy).first + ky;
      if (iy < 0 || iy >= D.h) skip.push_back(ky);
    }
    if (int64_t(skip.size()) == D.kh) {
      g.why_not = "an output row whose window lies wholly in the padding";
      return g;
    }
    auto it = std::find(g.skipped.begin(), g.skipped.end(), skip);
    if (it == g.skipped.end()) it = g.skipped.insert(g.skipped.end(), skip);
    g.row_variant[size_t(oy)] = int(it - g.skipped.begin());
  }
  const int64_t T = g.threads, W = D.w;
  g.a_half = g.cin_blocks * g.rows_in_max * W;
  g.b_half = g.rows_window * g.pitch;
  g.e_half = g.rows_in_max * W;
  g.d_half = R * D.ow;
  g.inp_used = T * (g.a_half + g.b_half);
  g.acc_used = T * (g.e_half + g.d_half);
  g.params = 2 * g.blocks * (1 + int64_t(g.skipped.size()));
  const int64_t block_weights = g.cin_blocks + D.kh, wgt_depth = int64_t(cfg.depth(hw::Memory::Weight));
  if (g.blocks * block_weights <= wgt_depth)
    g.weight_slots = g.blocks;
  else if (g.bands == 1)
    g.weight_slots = std::min(g.blocks, wgt_depth / block_weights);
  g.wgt_entries = g.weight_slots * block_weights;
  const int64_t iter_limit = (int64_t(1) << cfg.loop_iter_bits) - 1;
  const int64_t xfer_limit = (int64_t(1) << cfg.xfer_size_bits) - 1;
  const int64_t acc_room =
      std::min<int64_t>(int64_t(cfg.depth(hw::Memory::Acc)) - g.params, int64_t(cfg.depth(hw::Memory::Output)));
  if (g.inp_used > int64_t(cfg.depth(hw::Memory::Input)))
    g.why_not = "input and copied rows of " + std::to_string(g.inp_used) + " entries exceed the INP buffer";
  else if (g.acc_used > acc_room)
    g.why_not = "expanded rows and outputs of " + std::to_string(g.acc_used) + " entries exceed the ACC buffer";
  else if (g.weight_slots < std::min<int64_t>(2, g.blocks))
    // (A ring of one slot would have the next unit's expansion wait for the
    // weights that the unit before's depthwise layer frees after it.)
    g.why_not = "both layers' weights (" + std::to_string(g.blocks * block_weights) +
                " entries) exceed the WGT buffer" +
                (g.bands > 1 ? " (they stream through it only when one band covers the layer)"
                             : " and it holds fewer than two blocks' of them");
  else if (g.rows_in_max * W > iter_limit || g.run > iter_limit || W > xfer_limit || D.oh * D.ow > xfer_limit ||
           g.wgt_entries > xfer_limit || g.rows_in_max * W > xfer_limit)
    g.why_not = "a band exceeds the loop or transfer size fields";
  return g;
}

CostEstimate estimateExpandedPlan(const ConvLayer& D, const TilePlan& plan, const hw::HwConfig& cfg) {
  CostEstimate e;
  const ExpandedGeometry g = expandedGeometry(D, plan, cfg);
  if (!g.why_not.empty()) {
    e.why_not = g.why_not;
    return e;
  }
  e.fits = true;
  const double bus = cfg.axi_data_bits / 8.0;
  const hw::DramTiming dram = hw::defaultDramTiming(cfg);
  const double inp_entry = cfg.entryBytes(hw::Memory::Input), out_entry = cfg.entryBytes(hw::Memory::Output);
  const double wgt_entry = cfg.entryBytes(hw::Memory::Weight), acc_entry = cfg.entryBytes(hw::Memory::Acc);
  const int64_t R = plan.rows;
  // Both layers' weights load a block at a time, once: block q's expansion
  // in band 0 waits for its own, so band 0 runs at the pace of the slower
  // of the weight stream and its units.
  const double per_block_weights =
      2 * kDmaOverheadCycles + readTransferCycles(1, double(g.cin_blocks + D.kh) * wgt_entry, bus, dram.read_latency);
  // Per band: the compute module's expansions and DWGEMMs, the store
  // module's copies and output stores, the load module's input rows. With
  // latency hiding the bands overlap, each taking the longest of the three.
  double steady = 0, serial = 0;
  double first_load = 0, first_expand = 0, first_copy = 0, last_store = 0;
  for (int64_t b = 0; b < g.bands; ++b) {
    const int64_t oh0 = b * R, rows = std::min(R, D.oh - oh0);
    const auto [lo, hi] = bandInputRows(D, oh0, rows);
    const double n_in = double(hi - lo);
    const double ld = double(g.cin_blocks) *
                      (kDmaOverheadCycles + readTransferCycles(n_in, double(D.w) * inp_entry, bus, dram.read_latency));
    // The band's DWGEMMs: one per run of rows of one kernel-row variant.
    double dw = 0, dw_iterations = 0;
    for (int64_t oy = oh0; oy < oh0 + rows;) {
      int64_t end = oy;
      while (end < oh0 + rows && g.row_variant[size_t(end)] == g.row_variant[size_t(oy)]) ++end;
      const double used = double(D.kh - int64_t(g.skipped[size_t(g.row_variant[size_t(oy)])].size()));
      dw_iterations += double(end - oy) * double(g.run) * used;
      dw += kSetReqCycles + kPipelineOverheadCycles;
      oy = end;
    }
    dw += dw_iterations;
    const double expand_iterations = n_in * double(D.w) * double(g.cin_blocks);
    const double expand = expand_iterations + kSetReqCycles + kPipelineOverheadCycles;
    const double copy = n_in * double(D.w) + kPipelineOverheadCycles;
    const double out = kDmaOverheadCycles + transferCycles(1, double(rows * D.ow) * out_entry, bus, dram.write_latency);
    const double units = double(g.blocks);
    // (The copies write INP in the cycles the load module's beats leave
    // free: a band's input rows take that many from them.)
    const double inp_beats = double(g.cin_blocks) * n_in * double(D.w) * std::ceil(inp_entry / bus);
    const double compute = units * (expand + dw), store = units * (copy + out) + inp_beats;
    const double load = ld + (b == 0 ? units * per_block_weights : 0.0);
    steady += b == 0 ? std::max({units * std::max(per_block_weights, expand + dw), compute, store})
                     : std::max({compute, store, load});
    serial += units * (expand + copy + dw + out) + load;
    e.gemm_cycles += units * (expand_iterations + dw_iterations);
    e.load_cycles += load;
    e.store_cycles += store;
    e.dram_bytes += double(g.cin_blocks) * n_in * double(D.w) * inp_entry + units * double(rows * D.ow) * out_entry;
    if (b == 0) {
      first_load = ld;
      first_expand = expand;
      first_copy = copy;
    }
    last_store = out;
  }
  // Before the first unit: the micro-ops and parameters (compute module,
  // sharing the read port with the load module's padding entries, band 0's
  // rows and block 0's weights).
  const double pads = double(g.threads * (g.rows_window + 1)) * kDmaOverheadCycles / 4;
  const double params = kDmaOverheadCycles + double(g.params) * acc_entry / bus;
  const double uops = kDmaOverheadCycles + double(g.blocks * (g.cin_blocks + D.kh) * 2 * g.threads) * 4 / bus;
  e.lead_cycles = params + uops + pads;
  e.tail_cycles = last_store;
  e.dram_bytes += double(g.blocks * (g.cin_blocks + D.kh)) * wgt_entry + double(g.params) * acc_entry;
  if (g.threads > 1)
    e.cycles = e.lead_cycles + first_load + per_block_weights + first_expand + first_copy + steady + last_store;
  else
    e.cycles = e.lead_cycles + serial;
  return e;
}

TilePlan chooseExpandedTiling(const ConvLayer& D, const hw::HwConfig& cfg, bool latency_hiding,
                              CostEstimate* estimate) {
  TilePlan best;
  CostEstimate best_e;
  std::string why_not = "no band height fits";
  bool found = false;
  for (int64_t R = 1; R <= D.oh; ++R) {
    TilePlan p;
    p.rows = R;
    p.cols = D.ow;
    p.oc_blocks = 1;
    p.ic_blocks = 1;
    p.threads = latency_hiding ? 2 : 1;
    p.dwgemm = true;
    const CostEstimate e = estimateExpandedPlan(D, p, cfg);
    if (!e.fits) {
      if (!found) why_not = e.why_not;
      continue;
    }
    if (!found || e.cycles < best_e.cycles) {
      best = p;
      best_e = e;
      found = true;
    }
  }
  if (!found) throw DoesNotFit("layer '" + D.name + "' with its expansion fused: " + why_not);
  if (estimate) *estimate = best_e;
  return best;
}

}  // namespace vdla::accel
