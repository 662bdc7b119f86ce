// Max pooling on the accelerator: tiling, cost model and program
// (pool_layer.h). A tile is `rows` output rows of every column of one channel
// block (block_in channels, E = configInterleave entries per pixel, on a
// config with an interleave); with latency hiding ACC and OUT are split in two halves used by
// alternating tiles, so that the store of one tile overlaps the load and ALU
// passes of the next.
//
// Two forms of the input's way into the accumulators. The compute module
// loads it itself (LOAD ACC8), serial with its ALU passes; or, where INP and
// OUT entries are alike and GEMMs requantise (TilePlan::residual_via_input),
// the load module loads it into INP, in halves of its own, while the compute
// module works on the tile before, and one requantising GEMM over an identity
// weight block moves it into the accumulators, a cycle a vector: each entry
// is a reduction of its own that starts from the SETREQ's bias (zero), and
// the GEMM's OUT bytes (input rows, never stored) are not read.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "alu_program_constants.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/pool_layer.h"
#include "vdla/hw/dram_timing.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/runtime/accel/packed_layout.h"

namespace vdla::accel {

namespace {

using hw::Memory;
using rt::accel::Region;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// SRAM entries per input row of a tile (every column, padding included), and
// the rows of a tile of `rows` output rows.
int64_t inputPitch(const PoolLayer& L) { return (L.ow - 1) * L.sw + L.kw; }
int64_t inputRows(const PoolLayer& L, int64_t rows) { return (rows - 1) * L.sh + L.kh; }

// The input window of output rows [oh0, oh0 + rows) and the padding the DMA adds around it.
struct Window {
  int64_t row0, top, bottom, valid_rows, col0, left, right, valid_cols;
};
Window windowOf(const PoolLayer& L, int64_t oh0, int64_t rows) {
  Window w;
  w.row0 = oh0 * L.sh - L.pad_top;
  const int64_t row_end = w.row0 + inputRows(L, rows);
  w.top = std::max<int64_t>(0, -w.row0);
  w.bottom = std::max<int64_t>(0, row_end - L.h);
  w.valid_rows = row_end - w.bottom - (w.row0 + w.top);
  w.col0 = -L.pad_left;
  const int64_t col_end = w.col0 + inputPitch(L);
  w.left = std::max<int64_t>(0, -w.col0);
  w.right = std::max<int64_t>(0, col_end - L.w);
  w.valid_cols = col_end - w.right - (w.col0 + w.left);
  return w;
}

// Separable windows: when row 1 of each output's window belongs to that
// output alone (a row stride of at least 2 and a window at most one row
// taller), the window's rows are first folded into that row in place (one
// MAX over the tile's full rows per other kernel row), and the outputs then
// take the maximum along it (MOV and MAX over the kernel's columns). A 3x3
// window of stride 2 then costs about 7 tensor passes per output instead of
// 9: the two vertical passes cover the input's columns, of which an output
// row has twice as many as outputs.
bool separable(const PoolLayer& L) { return L.kh >= 2 && L.sh >= 2 && L.kh <= L.sh + 1; }
constexpr int64_t kPrivateRow = 1;  // the window row the others fold into

// ALU passes of a tile of `rows` output rows, in vectors (E per pixel), and instructions.
double poolAluVectors(const PoolLayer& L, int64_t rows, int64_t E) {
  if (!separable(L)) return double(rows * L.ow * L.kh * L.kw * E);
  return double(((L.kh - 1) * rows * inputPitch(L) + rows * L.ow * L.kw) * E);
}
int64_t poolAluInstructions(const PoolLayer& L) { return (separable(L) ? 1 : 0) + (L.kh * L.kw > 1 ? 2 : 1); }
// Micro-ops per half: the vertical folds' (separable; they run along whole
// rows of entries), then the first tap's, then the other taps' (one per
// entry of a pixel each).
int64_t foldsOf(const PoolLayer& L) { return separable(L) ? L.kh - 1 : 0; }
int64_t aluUopsPerHalf(const PoolLayer& L, int64_t E) { return foldsOf(L) + (separable(L) ? L.kw : L.kh * L.kw) * E; }
// The INP form's micro-op per half (the identity GEMM's) comes first.
int64_t uopsPerHalf(const PoolLayer& L, int64_t E, bool via_input) {
  return aluUopsPerHalf(L, E) + (via_input ? 1 : 0);
}
// The INP form's two ACC entries below the halves: the SETREQ's operand
// (any value: the GEMM's OUT bytes are not read) and its bias, zero.
int64_t paramEntries(bool via_input) { return via_input ? 2 : 0; }

// The INP form's estimate (`e` has fitted): per tile the load module's input
// load, the compute module's identity GEMM and ALU passes, the store; with
// two halves each waits for what it needs of the others (the load for the
// GEMM of tile i-T to free its INP half, the compute module for the load and
// for the store of tile i-T), and the DDR behind the port serves the loads
// and the stores together.
CostEstimate estimatePoolPlanViaInput(const PoolLayer& L, const TilePlan& p, const hw::HwConfig& cfg, CostEstimate e) {
  const int64_t T = p.threads, pitch = inputPitch(L);
  const int64_t planes = ceilDiv(L.n, cfg.batch) * ceilDiv(L.c, cfg.block_out);
  const double bus = cfg.axi_data_bits / 8.0, entry = cfg.entryBytes(Memory::Output);
  const hw::DramTiming dram = hw::defaultDramTiming(cfg);
  std::vector<double> loaded, computed, stored;
  auto at = [](const std::vector<double>& v, int64_t j) { return j >= 0 ? v[size_t(j)] : 0.0; };
  for (int64_t plane = 0, i = 0; plane < planes; ++plane)
    for (int64_t oh0 = 0; oh0 < L.oh; oh0 += p.rows, ++i) {
      const int64_t rows = std::min(p.rows, L.oh - oh0);
      const Window w = windowOf(L, oh0, rows);
      const double in_bytes = double(std::max<int64_t>(w.valid_rows, 0) * w.valid_cols) * entry;
      const double out_bytes = double(rows * L.ow) * entry;
      const double load = kDmaOverheadCycles + in_bytes / bus;
      const double moves = double(inputRows(L, rows) * pitch);
      const double gemm = moves + kPipelineOverheadCycles;
      const double alu = double(cfg.tensorAluCyclesPerVector()) * poolAluVectors(L, rows, 1) +
                         double(poolAluInstructions(L)) * kPipelineOverheadCycles;
      const double store = kDmaOverheadCycles + out_bytes / bus;
      e.load_cycles += load;
      e.gemm_cycles += moves;
      e.alu_cycles += alu;
      e.store_cycles += store;
      e.dram_bytes += in_bytes + out_bytes;
      loaded.push_back(std::max(at(loaded, i - 1), at(computed, i - T)) + load);
      computed.push_back(std::max({at(computed, i - 1), loaded.back(), at(stored, i - T)}) + gemm + alu);
      stored.push_back(std::max(at(stored, i - 1), computed.back()) + store);
    }
  const double fill = 3 * kDmaOverheadCycles + kSetReqCycles +
                      double(paramEntries(true) * cfg.entryBytes(Memory::Acc) + T * uopsPerHalf(L, 1, true) * 4 +
                             cfg.entryBytes(Memory::Weight)) /
                          bus;
  const double ddr_bound = dram.shared_bytes_per_cycle > 0 ? e.dram_bytes / dram.shared_bytes_per_cycle : 0.0;
  e.cycles = fill + std::max(stored.back(), ddr_bound);
  return e;
}

}  // namespace

bool poolInputCanUseInput(const hw::HwConfig& cfg) {
  return cfg.gemm_requant && cfg.block_in == cfg.block_out && configInterleave(cfg) == 1;
}

CostEstimate estimatePoolPlan(const PoolLayer& L, const TilePlan& p, const hw::HwConfig& cfg) {
  CostEstimate e;
  const int64_t T = p.threads, E = configInterleave(cfg);
  const bool via = p.residual_via_input;
  const int64_t half = (int64_t(cfg.depth(Memory::Acc)) - paramEntries(via)) / T;
  const int64_t input_entries = inputRows(L, p.rows) * inputPitch(L) * E;
  const int64_t tile_entries = input_entries + p.rows * L.ow * E;
  const int64_t iter_limit = (int64_t(1) << cfg.loop_iter_bits) - 1;
  const int64_t xfer_limit = (int64_t(1) << cfg.xfer_size_bits) - 1;
  const int64_t pad_limit = (int64_t(1) << cfg.pad_bits) - 1;
  const Window first = windowOf(L, 0, p.rows);
  if (p.rows < 1 || p.rows > L.oh)
    e.why_not = "tile outside the layer";
  else if (tile_entries > half)
    e.why_not = "a tile's input and output (" + std::to_string(tile_entries) + " entries) exceed the ACC buffer" +
                (T > 1 ? " halved for latency hiding" : "");
  else if (p.rows > iter_limit || L.ow > iter_limit || (separable(L) && inputPitch(L) * E > iter_limit) ||
           p.rows * L.ow * E > xfer_limit || L.w * E > xfer_limit)
    e.why_not = "tile exceeds the loop or transfer size fields";
  else if (std::max({first.top, L.pad_bottom, first.left * E, first.right * E}) > pad_limit)
    e.why_not = "padding exceeds the DMA's pad field";
  else if (T * uopsPerHalf(L, E, via) > int64_t(cfg.depth(Memory::Uop)))
    e.why_not = "the window's micro-ops exceed the UOP buffer";
  else if (via && !poolInputCanUseInput(cfg))
    e.why_not = "the input through INP needs requantising GEMMs and INP entries like OUT's";
  else if (via && T * input_entries > int64_t(cfg.depth(Memory::Input)))
    e.why_not = "a tile's input (" + std::to_string(input_entries) + " entries) exceeds the INP buffer" +
                (T > 1 ? " halved for latency hiding" : "");
  else if (via && (inputRows(L, p.rows) > iter_limit || inputPitch(L) > iter_limit))
    e.why_not = "tile exceeds the loop fields";
  if (!e.why_not.empty()) return e;
  e.fits = true;
  if (via) return estimatePoolPlanViaInput(L, p, cfg, e);

  const double bus = cfg.axi_data_bits / 8.0, entry = cfg.entryBytes(Memory::Output);
  const int64_t planes = ceilDiv(L.n, cfg.batch) * ceilDiv(L.c, E * cfg.block_out);
  double compute = 0, store = 0, last_store = 0;
  for (int64_t oh0 = 0; oh0 < L.oh; oh0 += p.rows) {
    const int64_t rows = std::min(p.rows, L.oh - oh0);
    const Window w = windowOf(L, oh0, rows);
    const double in_bytes = double(std::max<int64_t>(w.valid_rows, 0) * w.valid_cols * E) * entry;
    const double out_bytes = double(rows * L.ow * E) * entry;
    const double load = kDmaOverheadCycles + in_bytes / bus;
    // ALU instructions with a tensor operand that changes with every vector:
    // two ACC reads per vector (HwConfig::tensorAluCyclesPerVector).
    const double alu = double(cfg.tensorAluCyclesPerVector()) * poolAluVectors(L, rows, E) +
                       double(poolAluInstructions(L)) * kPipelineOverheadCycles;
    last_store = kDmaOverheadCycles + out_bytes / bus;
    e.load_cycles += double(planes) * load;
    e.alu_cycles += double(planes) * alu;
    e.store_cycles += double(planes) * last_store;
    e.dram_bytes += double(planes) * (in_bytes + out_bytes);
    compute += double(planes) * (load + alu);
    store += double(planes) * last_store;
  }
  const double fill = kDmaOverheadCycles + double(T * uopsPerHalf(L, E, false)) * 4 / bus;
  // The compute module loads ACC itself, so loads and ALU passes are serial;
  // with two halves the store module drains one tile while the next computes.
  e.cycles = fill + (T > 1 ? std::max(compute, store) + last_store : compute + store);
  return e;
}

TilePlan choosePoolTiling(const PoolLayer& L, const hw::HwConfig& cfg, bool latency_hiding, CostEstimate* estimate) {
  TilePlan best;
  CostEstimate best_cost;
  best_cost.cycles = std::numeric_limits<double>::infinity();
  std::string last_reason = "no tile shape";
  for (const bool via : poolInputCanUseInput(cfg) ? std::vector<bool>{false, true} : std::vector<bool>{false})
    for (int threads : latency_hiding ? std::vector<int>{2, 1} : std::vector<int>{1})
      for (int64_t rows = 1; rows <= L.oh; ++rows) {
        TilePlan p;
        p.rows = rows;
        p.cols = L.ow;
        p.threads = threads;
        p.residual_via_input = via;
        const CostEstimate e = estimatePoolPlan(L, p, cfg);
        if (!e.fits) {
          last_reason = e.why_not;
          continue;
        }
        if (e.cycles < best_cost.cycles) best = p, best_cost = e;
      }
  if (!best_cost.fits)
    throw DoesNotFit("layer '" + L.name + "': no tiling fits the on-chip buffers of config '" + cfg.name +
                     "' (smallest tile: " + last_reason + ")");
  if (estimate) *estimate = best_cost;
  return best;
}

ArenaPlacement standalonePoolPlacement(const PoolLayer& L, const hw::HwConfig& cfg) {
  const rt::accel::PackedGeometry xg =
      rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, configInterleave(cfg) * cfg.block_out);
  ArenaPlacement p;
  p.y_offset = static_cast<int64_t>(alignUp(static_cast<uint64_t>(xg.bytes()), kArenaAlign));
  return p;
}

ConvProgram generatePoolProgram(const PoolLayer& L, const TilePlan& plan, const hw::HwConfig& cfg,
                                uint64_t constants_offset, const ArenaPlacement& placement) {
  if (constants_offset % kArenaAlign) throw std::invalid_argument("constants offset must be 4 KiB aligned");
  ConvProgram out;
  const int64_t E = configInterleave(cfg);  // entries per pixel
  out.y_block = E * cfg.block_out;
  out.plan = plan;
  out.estimate = estimatePoolPlan(L, plan, cfg);
  if (!out.estimate.fits)
    throw std::runtime_error("layer '" + L.name + "': tiling does not fit: " + out.estimate.why_not);
  // pitch: SRAM entries per input row of a tile.
  const int64_t T = plan.threads, pitch = inputPitch(L) * E;
  const int64_t NB = ceilDiv(L.n, cfg.batch), CB = ceilDiv(L.c, out.y_block);
  const rt::accel::PackedGeometry xg = rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, out.y_block);
  const rt::accel::PackedGeometry yg = rt::accel::packedGeometry({L.n, L.c, L.oh, L.ow}, cfg.batch, out.y_block);
  for (int64_t offset : {placement.x_offset, placement.y_offset})
    if (offset < 0 || uint64_t(offset) % kArenaAlign)
      throw std::invalid_argument("layer '" + L.name + "': arena offset " + std::to_string(offset) +
                                  " is not a multiple of " + std::to_string(kArenaAlign));
  out.x_offset = placement.x_offset;
  out.y_offset = placement.y_offset;
  out.io_bytes = std::max(out.x_offset + xg.bytes(), out.y_offset + yg.bytes());
  const uint32_t entry = cfg.entryBytes(Memory::Output);
  const uint64_t x_base = static_cast<uint64_t>(out.x_offset) / entry;
  const uint64_t y_base = static_cast<uint64_t>(out.y_offset) / entry;

  // Per half: the tile's input rows, then its output rows (the ALU writes
  // ACC and OUT at the same index), above the INP form's two parameter
  // entries. Micro-ops per half (uopsPerHalf): the INP form's identity GEMM,
  // then the vertical folds into the private row (separable windows), then
  // the first tap's, then the other taps' (of the private row only, when
  // separable).
  const bool via = plan.residual_via_input;
  const int64_t P = paramEntries(via);
  const int64_t half = (int64_t(cfg.depth(Memory::Acc)) - P) / T;
  const int64_t inp_half = int64_t(cfg.depth(Memory::Input)) / T;
  const int64_t out_at = inputRows(L, plan.rows) * pitch;
  const bool fold_rows = separable(L);
  const int64_t U = uopsPerHalf(L, E, via), folds = foldsOf(L), gemm_uops = via ? 1 : 0;
  std::vector<hw::Uop> uops;
  for (int64_t v = 0; v < T; ++v) {
    const uint32_t base = static_cast<uint32_t>(P + v * half);
    if (via) uops.push_back({base, static_cast<uint32_t>(v * inp_half), 0});
    if (fold_rows) {
      for (int64_t ky = 0; ky < L.kh; ++ky)
        if (ky != kPrivateRow)
          uops.push_back(
              {static_cast<uint32_t>(base + kPrivateRow * pitch), static_cast<uint32_t>(base + ky * pitch), 0});
      for (int64_t kx = 0; kx < L.kw; ++kx)
        for (int64_t e = 0; e < E; ++e)
          uops.push_back({static_cast<uint32_t>(base + out_at + e),
                          static_cast<uint32_t>(base + kPrivateRow * pitch + kx * E + e), 0});
    } else {
      for (int64_t ky = 0; ky < L.kh; ++ky)
        for (int64_t kx = 0; kx < L.kw; ++kx)
          for (int64_t e = 0; e < E; ++e)
            uops.push_back(
                {static_cast<uint32_t>(base + out_at + e), static_cast<uint32_t>(base + ky * pitch + kx * E + e), 0});
    }
  }
  const uint32_t acc_entry = cfg.entryBytes(Memory::Acc), wgt_entry = cfg.entryBytes(Memory::Weight);
  const uint64_t uops_at = alignUp(uint64_t(P) * acc_entry, 4);
  const uint64_t wgt_at = alignUp(uops_at + uops.size() * 4, wgt_entry);

  rt::accel::DeviceProgram& prog = out.program;
  prog.name = L.name;
  auto emit = [&](const hw::Instruction& insn, Region region = Region::None) {
    prog.insns.push_back(insn);
    prog.regions.push_back(region);
    return prog.insns.size() - 1;
  };
  emit(hw::makeLoad(Memory::Uop, 0, (constants_offset + uops_at) / 4, 1, static_cast<uint32_t>(uops.size()),
                    static_cast<uint32_t>(uops.size())),
       Region::Constants);
  if (via) {
    emit(hw::makeLoad(Memory::Acc, 0, constants_offset / acc_entry, 1, uint32_t(P), uint32_t(P)), Region::Constants);
    emit(hw::makeLoad(Memory::Weight, 0, (constants_offset + wgt_at) / wgt_entry, 1, 1, 1), Region::Constants);
    hw::Instruction set;  // each moved entry's reduction starts from zero
    set.opcode = hw::Opcode::SetReq;
    set.alu_op = hw::AluOp::Req;
    set.sram_base = 0;
    emit(set);
  }

  const int64_t row_tiles = ceilDiv(L.oh, plan.rows), I = NB * CB * row_tiles;
  int64_t i = 0;
  for (int64_t nb = 0; nb < NB; ++nb)
    for (int64_t cb = 0; cb < CB; ++cb)
      for (int64_t rt_ = 0; rt_ < row_tiles; ++rt_, ++i) {
        const int64_t oh0 = rt_ * plan.rows, rows = std::min(plan.rows, L.oh - oh0);
        const int64_t v = i % T, in_base = P + v * half;
        const Window w = windowOf(L, oh0, rows);
        if (w.valid_rows <= 0 || w.valid_cols <= 0)
          throw DoesNotFit("layer '" + L.name + "': a tile's input lies entirely in the padding");
        const uint64_t plane = static_cast<uint64_t>(nb * CB + cb);
        const hw::Padding pad{static_cast<uint32_t>(w.top), static_cast<uint32_t>(w.bottom),
                              static_cast<uint32_t>(w.left * E), static_cast<uint32_t>(w.right * E)};
        const uint64_t x_at = x_base + ((plane * static_cast<uint64_t>(L.h) + static_cast<uint64_t>(w.row0 + w.top)) *
                                            static_cast<uint64_t>(L.w) +
                                        static_cast<uint64_t>(w.col0 + w.left)) *
                                           static_cast<uint64_t>(E);
        size_t first_compute = 0;
        if (via) {
          // The load module fills INP half v once the GEMM of tile i-T is
          // done with it; the GEMM waits for the load and moves every entry
          // of the tile's input rows, padding included.
          const size_t load = emit(hw::makeLoad(Memory::Input, static_cast<uint32_t>(v * inp_half), x_at,
                                                static_cast<uint32_t>(w.valid_rows),
                                                static_cast<uint32_t>(w.valid_cols), static_cast<uint32_t>(L.w), pad),
                                   Region::Io);
          if (i >= T) prog.insns[load].pop_next = true;
          prog.insns[load].push_next = true;
          hw::LoopNest g;
          g.uop_begin = static_cast<uint32_t>(v * U);
          g.uop_end = g.uop_begin + 1;
          g.iter_out = static_cast<uint32_t>(inputRows(L, rows));
          g.iter_in = static_cast<uint32_t>(pitch);
          g.dst_out = g.src_out = static_cast<uint32_t>(pitch);
          g.dst_in = g.src_in = 1;
          hw::Instruction gemm = hw::makeGemm(g);
          gemm.requant = true;
          first_compute = emit(gemm);
          prog.insns[first_compute].pop_prev = true;
          if (i + T < I) prog.insns[first_compute].push_prev = true;  // INP half v is free
        } else {
          first_compute =
              emit(hw::makeLoad(Memory::Acc8, static_cast<uint32_t>(in_base), x_at, static_cast<uint32_t>(w.valid_rows),
                                static_cast<uint32_t>(w.valid_cols * E), static_cast<uint32_t>(L.w * E), pad),
                   Region::Io);
        }
        if (i >= T) prog.insns[first_compute].pop_next = true;  // the store of tile i-T has read this half

        if (fold_rows) {
          // Each output row's private input row takes the maximum of its
          // window's rows, over every column of the tile.
          hw::LoopNest f;
          f.iter_out = static_cast<uint32_t>(rows);
          f.iter_in = static_cast<uint32_t>(pitch);
          f.dst_out = f.src_out = static_cast<uint32_t>(L.sh * pitch);
          f.dst_in = f.src_in = 1;
          f.uop_begin = static_cast<uint32_t>(v * U + gemm_uops);
          f.uop_end = f.uop_begin + static_cast<uint32_t>(folds);
          emit(hw::makeAlu(hw::AluOp::Max, f));
        }
        hw::LoopNest l;
        l.iter_out = static_cast<uint32_t>(rows);
        l.iter_in = static_cast<uint32_t>(L.ow);
        l.dst_out = static_cast<uint32_t>(L.ow * E);
        l.dst_in = static_cast<uint32_t>(E);
        l.src_out = static_cast<uint32_t>(L.sh * pitch);
        l.src_in = static_cast<uint32_t>(L.sw * E);
        l.uop_begin = static_cast<uint32_t>(v * U + gemm_uops + folds);
        l.uop_end = l.uop_begin + static_cast<uint32_t>(E);
        size_t last = emit(hw::makeAlu(hw::AluOp::Mov, l));
        if (U - gemm_uops - folds > E) {
          l.uop_begin = l.uop_end;
          l.uop_end = static_cast<uint32_t>((v + 1) * U);
          last = emit(hw::makeAlu(hw::AluOp::Max, l));
        }
        prog.insns[last].push_next = true;

        const size_t store =
            emit(hw::makeStore(
                     static_cast<uint32_t>(in_base + out_at),
                     y_base + (plane * static_cast<uint64_t>(L.oh) + uint64_t(oh0)) * static_cast<uint64_t>(L.ow * E),
                     1, static_cast<uint32_t>(rows * L.ow * E), static_cast<uint32_t>(rows * L.ow * E)),
                 Region::Io);
        prog.insns[store].pop_prev = true;
        if (i <= I - 1 - T) prog.insns[store].push_prev = true;
      }
  emit(hw::makeFinish());

  finishAluProgram(out, L.name, cfg, std::vector<int32_t>(size_t(P * acc_entry / 4), 0), uops_at, uops);
  if (via) {
    out.constants.resize(std::max<size_t>(out.constants.size(), alignUp(wgt_at + wgt_entry, kArenaAlign)), 0);
    for (int64_t k = 0; k < int64_t(cfg.block_out); ++k)
      out.constants[size_t(wgt_at + uint64_t(k * cfg.block_in + k))] = 1;
  }
  return out;
}

}  // namespace vdla::accel
