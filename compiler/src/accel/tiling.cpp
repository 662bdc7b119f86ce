#include "vdla/compiler/accel/tiling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <vector>

#include "vdla/compiler/accel/alu_sequence.h"
#include "vdla/compiler/accel/border_correction.h"
#include "vdla/compiler/accel/depthwise_gemm.h"
#include "vdla/compiler/accel/expanded_depthwise.h"
#include "dma_cost.h"
#include "vdla/hw/dram_timing.h"

namespace vdla::accel {

namespace {

constexpr double kDmaOverhead = kDmaOverheadCycles;
constexpr double kPipelineOverhead = kPipelineOverheadCycles;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Extents of a tiled dimension: `count` full tiles of `size` and maybe one edge.
struct Split {
  int64_t size, full, edge;  // edge = 0 when it divides evenly
  int64_t tiles() const { return full + (edge ? 1 : 0); }
};
Split split(int64_t total, int64_t size) { return {size, total / size, total % size}; }

template <typename F>
void forEachExtent(const Split& s, F f) {
  if (s.full) f(s.size, s.full);
  if (s.edge) f(s.edge, int64_t(1));
}

}  // namespace

LayerBlocks layerBlocks(const ConvLayer& L, const hw::HwConfig& cfg) {
  LayerBlocks b;
  b.batch_groups = ceilDiv(L.n, cfg.batch);
  b.input_planes = ceilDiv(L.c, cfg.block_in);
  b.in_blocks = maxInputBlocks(L, cfg.block_in, cfg.block_out);
  b.out_group = outputInterleave(L, cfg);
  b.out_blocks = outputBlocks(L, cfg);
  b.grouped = L.group > 1;
  const AluSequence seq = buildAluSequence(L, cfg);
  b.param_kinds = static_cast<int64_t>(seq.params.size());
  for (const BorderCorrection& c : borderCorrections(L))
    b.border_extents.push_back({c.rows.first, c.rows.count, c.cols.first, c.cols.count});
  b.border_kinds = static_cast<int64_t>(b.border_extents.size());
  b.param_vectors = (b.param_kinds + b.border_kinds) * b.out_blocks;
  b.alu_passes = static_cast<int>(seq.init.size() + seq.after.size());
  const int tensor_cycles = static_cast<int>(cfg.tensorAluCyclesPerVector());
  auto cyclesPerVector = [tensor_cycles](const std::vector<AluPass>& passes) {
    int n = 0;
    for (const AluPass& pass : passes) n += pass.src == AluPass::Src::Residual ? tensor_cycles : 1;
    return n;
  };
  b.init_alu_passes = static_cast<int>(seq.init.size());
  b.init_alu_cycles_per_vector = cyclesPerVector(seq.init);
  b.alu_cycles_per_vector = b.init_alu_cycles_per_vector + cyclesPerVector(seq.after);
  b.bias_clear = seq.bias_clear;
  b.zero_fill = seq.bias_clear && !seq.residual_in_acc;
  b.residual_region = L.residual && !seq.residual_in_acc;
  // R's entries must be INP entries: on a square array, or where the
  // output interleave makes each of R's entries block_in channels.
  b.residual_via_input = L.residual && seq.residual_in_acc && seq.bias_clear &&
                         b.out_group * int64_t(cfg.block_out) == int64_t(cfg.block_in);
  b.dwgemm = whyNoDepthwiseGemm(L, cfg).empty();
  // (A residual loaded into the accumulators is not the bias the requantising
  // GEMM starts from: such layers keep their pass.)
  b.gemm_requant_form = cfg.gemm_requant && seq.bias_clear && !seq.residual_in_acc && seq.init.empty() &&
                        seq.after.size() == 1 &&
                        (seq.after[0].op == hw::AluOp::Req || seq.after[0].op == hw::AluOp::FReq) &&
                        seq.after[0].src == AluPass::Src::Param && seq.after[0].bias_param >= 0 && !b.residual_region;
  return b;
}

bool requantisesInGemm(const LayerBlocks& b, const TilePlan& p) {
  // A DWGEMM tile's reduction is always whole (one chunk per oc block).
  return b.gemm_requant_form && !p.keep_alu_pass && (p.dwgemm || (!b.grouped && p.ic_blocks >= b.in_blocks));
}

CostEstimate estimatePlan(const ConvLayer& L, const TilePlan& p, const hw::HwConfig& cfg) {
  if (L.expansion) return estimateExpandedPlan(L, p, cfg);
  return estimatePlan(L, p, cfg, layerBlocks(L, cfg));
}

CostEstimate estimatePlan(const ConvLayer& L, const TilePlan& p, const hw::HwConfig& cfg, const LayerBlocks& b) {
  CostEstimate e;
  const int64_t T = p.threads;
  const bool dw = p.dwgemm;
  const bool gemm_requant = requantisesInGemm(b, p);
  const int64_t kk = L.kh * L.kw;
  // WGT entries per (oc block, ic block): a GEMM tap each, or a DWGEMM
  // entry per kernel row (its columns are the entry's rows).
  const int64_t wgt_per_block = dw ? L.kh : kk;
  const int64_t ih_full = (p.rows - 1) * L.sh + L.kh, iw_full = (p.cols - 1) * L.sw + L.spanW();
  // A DWGEMM tile loads the input plane of each of its oc blocks, which LB
  // consecutive blocks share (depthwise_gemm.h).
  const int64_t LB = dw ? int64_t(cfg.depthwiseLaneBlocks()) : 1;
  auto dwPlanes = [&](int64_t oc) { return (oc + LB - 1) / LB; };
  const bool via_input = p.residual_via_input;
  // (R's tile follows the input tile in INP, the identity block the weight
  // tile in WGT.)
  const int64_t inp_tile = (dw ? dwPlanes(p.oc_blocks) : p.ic_blocks) * ih_full * iw_full +
                           (via_input ? p.oc_blocks / b.out_group * p.rows * p.cols : 0);
  // (An identity block per oc block of an interleaved entry.)
  const int64_t wgt_tile = p.oc_blocks * p.ic_blocks * wgt_per_block + (via_input ? b.out_group : 0);
  const int64_t acc_tile = p.oc_blocks * p.rows * p.cols * (b.residual_region ? 2 : 1);
  const int64_t acc_avail = int64_t(cfg.depth(hw::Memory::Acc)) - b.param_vectors;
  const int64_t iter_limit = (int64_t(1) << cfg.loop_iter_bits) - 1;
  const int64_t xfer_limit = (int64_t(1) << cfg.xfer_size_bits) - 1;
  const int64_t pad_limit = (int64_t(1) << cfg.pad_bits) - 1;
  if (p.rows < 1 || p.cols < 1 || p.oc_blocks < 1 || p.ic_blocks < 1 || p.rows > L.oh || p.cols > L.ow ||
      p.oc_blocks > b.out_blocks || p.ic_blocks > b.in_blocks || (b.grouped && !dw && p.oc_blocks != b.out_group))
    e.why_not = "tile outside the layer";
  else if (p.oc_blocks % b.out_group)
    e.why_not = "oc tile of " + std::to_string(p.oc_blocks) + " blocks is not a multiple of the output interleave (" +
                std::to_string(b.out_group) + ")";
  else if (dw && !b.dwgemm)
    e.why_not = "no DWGEMM form: " + whyNoDepthwiseGemm(L, cfg);
  else if (via_input && (dw || !b.residual_via_input))
    e.why_not = "the residual cannot load through INP";
  else if (L.dilation_w > 1 && (dw || L.group != 1 || L.pad_top || L.pad_left || L.pad_bottom || L.pad_right))
    e.why_not = "a column-unfolded layer must be dense, on GEMM, with its padding on the host";
  else if (dw && p.ic_blocks != 1)
    e.why_not = "a DWGEMM tile reads one input block per oc block";
  else if (dw && p.oc_blocks % LB && p.oc_blocks != b.out_blocks)  // tiles start at multiples of LB
    e.why_not = "a DWGEMM oc tile of " + std::to_string(p.oc_blocks) + " blocks splits an input block (" +
                std::to_string(LB) + " oc blocks each)";
  else if (inp_tile > int64_t(cfg.depth(hw::Memory::Input)) / T)
    e.why_not = "input tile of " + std::to_string(inp_tile) + " entries exceeds the INP buffer";
  else if (wgt_tile > int64_t(cfg.depth(hw::Memory::Weight)) / T)
    e.why_not = "weight tile of " + std::to_string(wgt_tile) + " entries exceeds the WGT buffer";
  else if (acc_tile > acc_avail / T)
    e.why_not = "output tile of " + std::to_string(acc_tile) + " entries exceeds the ACC buffer (" +
                std::to_string(std::max<int64_t>(acc_avail, 0)) + " of its " +
                std::to_string(cfg.depth(hw::Memory::Acc)) + " entries left beside " + std::to_string(b.param_vectors) +
                " parameter vectors" + (T > 1 ? ", halved for latency hiding)" : ")");
  else if (p.rows * p.cols > iter_limit || L.w > xfer_limit || L.h > xfer_limit ||
           L.oh * L.ow * b.out_group > xfer_limit || (dw && iw_full > iter_limit))
    e.why_not = "tile exceeds the loop or transfer size fields";
  else if (std::max({L.pad_top, L.pad_bottom, L.pad_left, L.pad_right}) > pad_limit)
    e.why_not = "padding exceeds the DMA's pad field";
  if (!e.why_not.empty()) return e;

  // Micro-op kernels: one per (INP/WGT half, ACC half) and distinct tile
  // extent; ALU micro-ops: one per (ACC half, region pair) for immediates
  // and residuals, one per (ACC half, oc tile, vector) for parameters.
  const Split rs = split(L.oh, p.rows), cs = split(L.ow, p.cols), os = split(b.out_blocks, p.oc_blocks),
              is = split(b.in_blocks, p.ic_blocks);
  int64_t uops = 0;
  forEachExtent(os, [&](int64_t oc, int64_t) {
    forEachExtent(is, [&](int64_t ic, int64_t) { uops += oc * ic * wgt_per_block; });
  });
  uops *= T * T * (cs.edge ? 2 : 1);
  if (via_input) uops += T * T * b.out_group;  // the identity GEMM's, per (INP half, ACC half, block of an entry)
  // An interleaved tile's ALU passes and row or column corrections take a
  // micro-op per group of oc blocks.
  const int64_t groups = b.out_group > 1 ? p.oc_blocks / b.out_group : 1;
  uops += T * (3 + os.tiles() * b.param_kinds) * groups;
  // Border corrections: one micro-op per oc block, at a few distinct tile offsets.
  for (const BorderExtent& x : b.border_extents) {
    // Per ACC half, oc tile and distinct offset of the correction's outputs
    // within a tile, one micro-op (a rectangle: one per oc block).
    auto offsets = [](int64_t first, int64_t count, int64_t tile, int64_t total) {
      std::vector<int64_t> seen;
      for (int64_t t0 = 0; t0 < total; t0 += tile) {
        const int64_t lo = std::max(first, t0), hi = std::min({first + count, t0 + tile, total});
        if (lo < hi && std::find(seen.begin(), seen.end(), lo - t0) == seen.end()) seen.push_back(lo - t0);
      }
      return int64_t(seen.size());
    };
    const bool rectangle = x.rows > 1 && x.cols > 1;
    uops += T * os.tiles() * offsets(x.first_row, x.rows, p.rows, L.oh) * offsets(x.first_col, x.cols, p.cols, L.ow) *
            (rectangle ? p.oc_blocks : groups);
  }
  if (uops > int64_t(cfg.depth(hw::Memory::Uop)) || uops > xfer_limit) {
    e.why_not = "micro-op kernels of " + std::to_string(uops) + " entries exceed the UOP buffer";
    return e;
  }
  e.fits = true;

  const double bus = cfg.axi_data_bits / 8.0;
  const hw::DramTiming dram = hw::defaultDramTiming(cfg);
  const double inp_entry = cfg.entryBytes(hw::Memory::Input), wgt_entry = cfg.entryBytes(hw::Memory::Weight);
  const double out_entry = cfg.entryBytes(hw::Memory::Output);
  double overlapped = 0, serial = 0;
  double bytes_written = 0;  // of e.dram_bytes
  // With double buffering the load tiles form a two-stage pipeline (load,
  // then GEMM). Summing max(load, gemm) per tile counts its steady state; the
  // first tile's load cannot overlap a GEMM and the last tile's GEMM no load,
  // which costs min(load, gemm) of a tile once. (Charging the last output
  // tile's store as well made the totals worse against the cycle simulator,
  // benchmarks/cost_model_accuracy.sh, so it is left out.)
  double pipeline_ends = 0;
  double last_store = 0;  // the longest store of one output tile (a layer's drain)
  // The last tile's passes have no next load to hide behind: what the
  // largest hiding took off is charged once more.
  double last_tile_hidden = 0;
  // Weight tiles repeat with period (oc tiles x chunks); when that divides the
  // number of halves, every half keeps its weights and they load only once.
  // (A grouped GEMM layer's oc tiles have different numbers of chunks, so
  // the period does not hold; a DWGEMM layer's have one each.)
  const bool weights_stay = (!b.grouped || dw) && (os.tiles() * is.tiles()) <= T && T % (os.tiles() * is.tiles()) == 0;
  // Every (row tile, column tile, oc tile) is one output tile; it has
  // is.tiles() load tiles.
  forEachExtent(rs, [&](int64_t rows, int64_t nr) {
    const int64_t ih = std::min((rows - 1) * L.sh + L.kh, L.h);
    forEachExtent(cs, [&](int64_t cols, int64_t nc) {
      const int64_t pitch = (cols - 1) * L.sw + L.spanW();  // the tile's input row, padding included
      const int64_t iw = std::min(pitch, L.w);
      // (compute, store) of the full and the edge oc tile at this extent.
      std::vector<std::pair<double, double>> oc_tiles;
      forEachExtent(os, [&](int64_t oc, int64_t no) {
        const double tiles = double(nr * nc * no * b.batch_groups);
        const double vectors = double(oc * rows * cols);
        double compute = 0, load = 0;
        double first_ld = -1, first_gemm = 0;  // a load tile with the tile's first input blocks
        forEachExtent(is, [&](int64_t ic, int64_t ni) {
          const int64_t planes = dw ? dwPlanes(oc) : ic;  // input transfers of the load tile
          const double inp_bytes = double(planes * ih * iw) * inp_entry;
          const double wgt_bytes = weights_stay ? 0.0 : double(oc * ic * wgt_per_block) * wgt_entry;
          const double ld = double(planes + (weights_stay ? 0 : 1)) * kDmaOverhead +
                            readTransferCycles(double(planes * ih), double(iw) * inp_entry, bus, dram.read_latency) +
                            (weights_stay ? 0.0
                                          : readTransferCycles(double(oc), double(ic * wgt_per_block) * wgt_entry, bus,
                                                               dram.read_latency));
          // GEMM: a micro-op per tap, block and output vector. DWGEMM: an
          // iteration per input pixel of each output row, per kernel row
          // and oc block (the kernel's columns are its window).
          // (A DWGEMM per lane block: LB instructions.)
          const double iterations = dw ? double(oc * L.kh * rows * pitch) : vectors * double(ic * kk);
          // (A requantising tile: a SETREQ and a GEMM per oc block.)
          const double gemm = iterations + (gemm_requant ? double(oc) * (kPipelineOverhead + kSetReqCycles)
                                                         : double(dw ? std::min(LB, oc) : 1) * kPipelineOverhead);
          e.gemm_cycles += tiles * double(ni) * iterations;
          e.load_cycles += tiles * double(ni) * ld;
          e.dram_bytes += tiles * double(ni) * (inp_bytes + wgt_bytes);
          compute += double(ni) * gemm;
          load += double(ni) * ld;
          if (first_ld < 0) {
            first_ld = ld;
            first_gemm = gemm;
          }
          overlapped += tiles * double(ni) * std::max(ld, gemm);
          pipeline_ends = std::max(pipeline_ends, std::min(ld, gemm));
        });
        const double out_bytes = vectors * out_entry;
        // Rows of an interleaved tile are G times as long and G times fewer.
        const int64_t groups = oc / b.out_group, group_entries = b.out_group;
        const double transfers = cols == L.ow ? 1 : double(groups * rows);
        // An interleaved tile takes an ALU instruction per group and pass.
        const double alu_insns = b.out_group > 1 ? double(oc / b.out_group) : 1.0;
        double alu = double(b.alu_cycles_per_vector) * double(oc * rows * p.cols) +
                     double(b.alu_passes) * alu_insns * kPipelineOverhead;
        // bias_clear: each oc block's bias fetch and operand read
        // (HwConfig::biasMissExtraCycles).
        if (b.bias_clear) alu += double(cfg.biasMissExtraCycles()) * double(oc);
        double residual_load = 0;  // of alu: the compute module's load of R
        if (gemm_requant)          // the GEMMs requantise: only the passes before them are left
          alu = double(b.init_alu_cycles_per_vector) * double(oc * rows * p.cols) +
                double(b.init_alu_passes) * alu_insns * kPipelineOverhead;
        if (L.residual) {
          // The compute module loads R itself, while the load module loads
          // the next tile's inputs on the same read channel: once the passes
          // after this tile's GEMMs are done (they give that load a head
          // start), the two share it until one of them ends.
          const double after_gemm = alu - (double(b.init_alu_cycles_per_vector) * double(oc * rows * p.cols) +
                                           double(b.init_alu_passes) * alu_insns * kPipelineOverhead);
          const double r = out_bytes / bus;
          residual_load = transfers * kDmaOverhead + r + (T > 1 ? std::min(r, std::max(0.0, load - after_gemm)) : 0.0);
          if (via_input) {
            // The load module reads R beside the tile's first input; the
            // identity GEMM adds it, a micro-op per vector.
            const double r_load = transfers * kDmaOverhead + r, identity = vectors + kPipelineOverhead;
            e.load_cycles += tiles * r_load;
            e.gemm_cycles += tiles * vectors;
            overlapped += tiles * std::max(r_load, identity);
            serial += tiles * (r_load + identity);
            residual_load = 0;
          }
          alu += residual_load;
        }
        // Whole rows go out as one plane per oc block, narrower tiles a row at a time.
        const double store =
            transfers * kDmaOverhead +
            (cols == L.ow ? transferCycles(double(groups), double(rows * cols * group_entries) * out_entry, bus,
                                           dram.write_latency)
                          : transferCycles(double(groups * rows), double(cols * group_entries) * out_entry, bus,
                                           dram.write_latency));
        e.alu_cycles += tiles * alu;
        e.store_cycles += tiles * store;
        e.dram_bytes += tiles * out_bytes * (L.residual ? 2 : 1);
        bytes_written += tiles * out_bytes;
        // The passes after the GEMMs run while the load module loads the
        // next tile: where that load outlasts its GEMM (a load-bound layer),
        // the passes hide in the difference; the load of R does not, as it
        // reads on the same channel. (Measured so only where a tile's
        // reduction is one load tile: with several, ResNet-50's strided
        // downsampling layers on ultra96 showed no such overlap.)
        const double hidden =
            T > 1 && is.tiles() == 1 ? std::min(alu - residual_load, std::max(0.0, first_ld - first_gemm)) : 0.0;
        overlapped += tiles * (alu - hidden);
        last_tile_hidden = std::max(last_tile_hidden, hidden);
        // Without latency hiding a tile's store still runs in the store
        // module while the next tile loads and multiplies; only what is left
        // of it after those is serial (measured on the cycle simulator:
        // charging the whole store overestimated by 4-12%).
        serial += tiles * (compute + load + alu + std::max(0.0, store - load - compute));
        oc_tiles.push_back({compute + alu, store});
        last_store = std::max(last_store, store);
      });
      // With two ACC halves the tile after next waits for this tile's store:
      // a tile whose store outlasts the next tile's compute delays the one
      // after by the difference. The oc tiles of a position run full ones
      // first, then the edge one, then the next position's.
      if (T > 1) {
        const double positions = double(nr * nc * b.batch_groups);
        auto wait = [](const std::pair<double, double>& a, const std::pair<double, double>& next) {
          return std::max(0.0, a.second - next.first);
        };
        const auto& full = oc_tiles.front();
        double per_position = double(std::max<int64_t>(0, os.full - 1)) * wait(full, full);
        if (os.edge && os.full)
          per_position += wait(full, oc_tiles.back()) + wait(oc_tiles.back(), full);
        else
          per_position += wait(oc_tiles.back(), oc_tiles.front());
        overlapped += positions * per_position;
      }
    });
  });
  // Border corrections: an ALU ADD from a parameter vector over each
  // correction's outputs, an instruction per output tile it reaches (a row
  // or column of an interleaved tile: one per group of oc blocks). A row or
  // column keeps its vector in the operand register (one cycle a vector); a
  // rectangle alternates oc blocks (two).
  for (const BorderExtent& x : b.border_extents) {
    const bool rectangle = x.rows > 1 && x.cols > 1;
    const double tiles_reached = double(std::min(rs.tiles(), x.rows / p.rows + 2) *
                                        std::min(cs.tiles(), x.cols / p.cols + 2) * os.tiles() * b.batch_groups);
    const double per_vector = rectangle ? 2.0 : 1.0;
    // Where the GEMMs requantise, the requantising op follows each correction,
    // and the two alternate operands: each fetches its vector per oc block.
    const double passes = gemm_requant ? 2.0 : 1.0;
    const double alu = passes * (per_vector * double(x.rows * x.cols * b.out_blocks * b.batch_groups) +
                                 tiles_reached * (rectangle ? 1.0 : double(groups)) * kPipelineOverhead) +
                       (gemm_requant ? 2.0 * tiles_reached * double(p.oc_blocks) : 0.0);
    e.alu_cycles += alu;
    overlapped += alu;
    serial += alu;
  }
  // The compute module loads the parameter vectors while the load module
  // loads the first tile's inputs and weights on the same read channel: they
  // share it until the shorter of the two is done.
  const double params = double(b.param_vectors) * double(cfg.entryBytes(hw::Memory::Acc)) / bus;
  const double first_tile = (double(inp_tile) * inp_entry + double(wgt_tile) * wgt_entry) / bus;
  double fill = 2 * kDmaOverhead + params + std::min(params, first_tile) + double(uops) * 4 / bus;
  // bias_clear: the pass that zeroes each half's tile once.
  if ((b.zero_fill || via_input) && !gemm_requant)
    fill += double(T * p.oc_blocks * p.rows * p.cols) + kPipelineOverhead;
  // Weights that stay load once into each half a load tile uses (a layer of
  // one load tile fills one half).
  const int64_t load_tiles = b.batch_groups * rs.tiles() * cs.tiles() * os.tiles() * is.tiles();
  if (weights_stay) fill += double(std::min(T, load_tiles)) * (kDmaOverhead + double(wgt_tile) * wgt_entry / bus);
  // The DDR behind the port serves loads and stores together (pynq at 150
  // MHz: 11.2 bytes per cycle for both, against 8 per direction).
  // Reads go first when the budget cannot serve a read and a write beat
  // (axi_dram.cpp): while the reads stream, the writes get what the budget
  // leaves them, and at most the port's rate once the reads are done.
  double ddr_bound = 0;
  if (dram.shared_bytes_per_cycle > 0) {
    const double per_direction = dram.bytes_per_cycle;
    const double reading = (e.dram_bytes - bytes_written) / per_direction;
    const double write_rate = std::min(per_direction, std::max(0.0, dram.shared_bytes_per_cycle - per_direction));
    ddr_bound = std::max(e.dram_bytes / dram.shared_bytes_per_cycle,
                         reading + std::max(0.0, bytes_written - write_rate * reading) / per_direction);
  }
  overlapped += last_tile_hidden;
  // In a program chain (program_chain.h) the constant loads before the first
  // GEMM (parameter vectors, micro-ops, the first tile's weights) run while
  // the layer before stores its last tile.
  e.lead_cycles = std::min(fill + first_tile, 2 * kDmaOverhead + params + double(uops) * 4 / bus + kDmaOverhead +
                                                  double(wgt_tile) * wgt_entry / bus);
  e.tail_cycles = last_store;
  e.cycles = fill + (p.threads > 1 ? std::max({overlapped, e.load_cycles, e.store_cycles, ddr_bound}) + pipeline_ends
                                   : std::max(serial, ddr_bound));
  return e;
}

double chainOverlapCycles(const CostEstimate& before, const CostEstimate& after) {
  return std::min(before.tail_cycles, after.lead_cycles);
}

namespace {

// Tile extents worth trying for a dimension of `n`: ceil(n / k) for every k,
// i.e. the sizes that split it into k nearly equal tiles (O(sqrt n) values).
std::vector<int64_t> candidateExtents(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t k = 1; k <= n; ++k) {
    const int64_t e = ceilDiv(n, k);
    if (out.empty() || out.back() != e) out.push_back(e);
  }
  return out;
}

}  // namespace

TilePlan chooseTiling(const ConvLayer& L, const hw::HwConfig& cfg, bool latency_hiding, CostEstimate* estimate) {
  const LayerBlocks b = layerBlocks(L, cfg);
  TilePlan best;
  CostEstimate best_cost;
  best_cost.cycles = std::numeric_limits<double>::infinity();
  std::string last_reason = "no tile shape";
  TilePlan p;
  p.threads = latency_hiding ? 2 : 1;
  const std::vector<int64_t> rows = candidateExtents(L.oh), cols = candidateExtents(L.ow),
                             ics = candidateExtents(b.in_blocks);
  // Oc tiles in whole interleave groups.
  std::vector<int64_t> all_ocs = candidateExtents(b.out_blocks / b.out_group);
  for (int64_t& oc : all_ocs) oc *= b.out_group;
  // GEMM plans, and DWGEMM plans where the layer has the form: the cost
  // model decides between them as between tile shapes.
  for (bool dw : {false, true}) {
    if (dw && !b.dwgemm) continue;
    p.dwgemm = dw;
    const std::vector<int64_t>& ocs = b.grouped && !dw ? std::vector<int64_t>{b.out_group} : all_ocs;
    for (int64_t r : rows)
      for (int64_t c : cols)
        for (int64_t oc : ocs)
          for (int64_t ic : dw ? std::vector<int64_t>{1} : ics) {
            p.rows = r;
            p.cols = c;
            p.oc_blocks = oc;
            p.ic_blocks = ic;
            // Where the GEMMs could requantise, also with the ALU pass kept.
            p.keep_alu_pass = false;
            const bool either = requantisesInGemm(b, p);
            for (bool keep : {false, true}) {
              if (keep && !either) break;
              p.keep_alu_pass = keep;
              // The residual through the compute module, and through INP where it can.
              for (bool via : {false, true}) {
                if (via && (!b.residual_via_input || dw)) break;
                p.residual_via_input = via;
                const CostEstimate e = estimatePlan(L, p, cfg, b);
                if (!e.fits) {
                  if (!via) last_reason = e.why_not;
                  continue;
                }
                if (e.cycles < best_cost.cycles ||
                    (e.cycles == best_cost.cycles && e.dram_bytes < best_cost.dram_bytes)) {
                  best = p;
                  best_cost = e;
                }
              }
            }
          }
  }
  if (!best_cost.fits)
    throw DoesNotFit("layer '" + L.name + "': no tiling fits the on-chip buffers of config '" + cfg.name +
                     "' (smallest tile: " + last_reason + ")");
  if (estimate) *estimate = best_cost;
  return best;
}

}  // namespace vdla::accel
