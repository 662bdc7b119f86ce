// Quantised additions on the accelerator: tiling, cost model and program
// (add_layer.h). A tile is a run of consecutive entries of the packed
// tensors, which A, B and C share entry for entry; with latency hiding ACC and
// OUT are split in two halves used by alternating tiles, so that the store of
// one tile overlaps the loads and ALU passes of the next.
//
// Two forms. The compute module loads A and B into the accumulators itself
// (LOAD ACC8), serial with its ALU passes; or, where INP and OUT entries are
// alike and GEMMs requantise (TilePlan::residual_via_input), the load module
// loads them into INP, in halves of its own, while the compute module works
// on the tile before, and two requantising GEMMs over an identity weight
// block put them in the accumulators, a cycle a vector each: a fresh
// reduction starts from the SETREQ's bias (zero), so nothing has to clear
// them first, and the GEMMs' OUT bytes are overwritten by the REQ.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "alu_program_constants.h"
#include "vdla/compiler/accel/add_layer.h"
#include "vdla/hw/dram_timing.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa.h"
#include "vdla/runtime/accel/packed_layout.h"
#include "round_and_clip.h"

namespace vdla::accel {

namespace {

using hw::Memory;
using rt::accel::Region;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Parameter vectors at the bottom of ACC, each one value in every lane: the
// two multipliers, the rounding shift's operand (round_and_clip.h) and the
// offset beside it, where a bias_clear REQ reads its bias.
enum Param : int64_t { kMulA = 0, kMulB = 1, kReqOperand = 2, kOffset = 3, kZero = 4 };
// The INP form's SETREQ reads its operand at kOffset (any value: the GEMMs'
// OUT bytes are overwritten) and its bias, zero, at kZero.
int64_t paramEntries(bool via_input) { return via_input ? 5 : 4; }

// With REQ and bias_clear the offset rides in the REQ (which adds ACC[src+1]
// first) instead of a pass of its own; the REQ's zeroing of the accumulators
// is harmless, since the next tile in those entries loads A over them.
bool offsetInReq(const hw::HwConfig& cfg) { return cfg.fused_requant && cfg.alu_bias_clear; }

// One micro-op per ALU pass and half: MUL A, MUL B, ADD B to A, ADD the
// offset (unused when it rides in the REQ), and the rounding shift with the
// clip (one REQ, or MULSHR and CLIP).
constexpr int64_t kUopsPerHalf = 5;
// The INP form's: the two GEMMs' first, then the ALU passes'.
constexpr int64_t kGemmUops = 2;
int64_t uopsPerHalf(bool via_input) { return kUopsPerHalf + (via_input ? kGemmUops : 0); }
// ALU passes, and their cycles per entry of a tile: every pass one, ADD of B
// two without acc_dual_read (its operand changes with every entry:
// HwConfig::tensorAluCyclesPerVector).
int64_t aluPasses(const hw::HwConfig& cfg) { return (offsetInReq(cfg) ? 3 : 4) + roundAndClipPasses(cfg); }
int64_t aluCyclesPerEntry(const hw::HwConfig& cfg) {
  return aluPasses(cfg) - 1 + int64_t(cfg.tensorAluCyclesPerVector());
}

int64_t entriesOf(const AddLayer& L, const hw::HwConfig& cfg) {
  const rt::accel::PackedGeometry g =
      rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, configInterleave(cfg) * cfg.block_out);
  return g.bytes() / int64_t(cfg.entryBytes(Memory::Output));
}

}  // namespace

namespace {

bool addOperandsCanUseInput(const hw::HwConfig& cfg) {
  return cfg.gemm_requant && cfg.block_in == cfg.block_out && configInterleave(cfg) == 1;
}

// The INP form (`e` has fitted): per tile the load module's two operand
// loads, the compute module's two GEMMs and ALU passes, the store; with two
// halves each waits for what it needs of the others (the loads for the
// GEMMs of tile i-T to free their INP half, the compute module for the
// loads and for the store of tile i-T), and the DDR behind the port serves
// the loads and the stores together.
CostEstimate estimateAddPlanViaInput(const AddLayer& L, const TilePlan& p, const hw::HwConfig& cfg, CostEstimate e) {
  const int64_t T = p.threads, R = p.rows, E = entriesOf(L, cfg);
  const double bus = cfg.axi_data_bits / 8.0, entry = cfg.entryBytes(Memory::Output);
  const hw::DramTiming dram = hw::defaultDramTiming(cfg);
  std::vector<double> loaded, computed, stored;
  for (int64_t e0 = 0, i = 0; e0 < E; e0 += R, ++i) {
    const int64_t cnt = std::min(R, E - e0);
    const double bytes = double(cnt) * entry;
    const double load = 2 * (kDmaOverheadCycles + bytes / bus);
    const double gemm = double(2 * cnt) + 2 * kPipelineOverheadCycles;
    const double alu = double((aluCyclesPerEntry(cfg)) * cnt) + double(aluPasses(cfg)) * kPipelineOverheadCycles +
                       (offsetInReq(cfg) ? double(cfg.biasMissExtraCycles()) : 0.0);
    const double store = kDmaOverheadCycles + bytes / bus;
    e.load_cycles += load;
    e.gemm_cycles += double(2 * cnt);
    e.alu_cycles += alu;
    e.store_cycles += store;
    e.dram_bytes += 3 * bytes;
    const size_t k = size_t(i);
    auto at = [&](const std::vector<double>& v, int64_t j) { return j >= 0 ? v[size_t(j)] : 0.0; };
    loaded.push_back(std::max(at(loaded, i - 1), T > 1 ? at(computed, i - T) : at(computed, i - 1)) + load);
    computed.push_back(std::max({at(computed, i - 1), loaded[k], T > 1 ? at(stored, i - T) : at(stored, i - 1)}) +
                       gemm + alu);
    stored.push_back(std::max(at(stored, i - 1), computed[k]) + store);
  }
  const double fill = 3 * kDmaOverheadCycles + kSetReqCycles +
                      double(paramEntries(true) * cfg.entryBytes(Memory::Acc) + T * uopsPerHalf(true) * 4 +
                             cfg.entryBytes(Memory::Weight)) /
                          bus;
  double ddr_bound = 0;
  if (dram.shared_bytes_per_cycle > 0) ddr_bound = e.dram_bytes / dram.shared_bytes_per_cycle;
  e.cycles = fill + std::max(stored.back(), ddr_bound);
  return e;
}

}  // namespace

CostEstimate estimateAddPlan(const AddLayer& L, const TilePlan& p, const hw::HwConfig& cfg) {
  CostEstimate e;
  const int64_t T = p.threads, R = p.rows, E = entriesOf(L, cfg);
  const bool via = p.residual_via_input;
  const int64_t half = (int64_t(cfg.depth(Memory::Acc)) - paramEntries(via)) / T;
  const int64_t iter_limit = (int64_t(1) << cfg.loop_iter_bits) - 1;
  const int64_t xfer_limit = (int64_t(1) << cfg.xfer_size_bits) - 1;
  if (R < 1 || R > E)
    e.why_not = "tile outside the layer";
  else if (2 * R > half)
    e.why_not = "a tile's two operands (" + std::to_string(2 * R) + " entries) exceed the ACC buffer" +
                (T > 1 ? " halved for latency hiding" : "");
  else if (R > iter_limit || R > xfer_limit)
    e.why_not = "tile exceeds the loop or transfer size fields";
  else if (T * uopsPerHalf(via) > int64_t(cfg.depth(Memory::Uop)))
    e.why_not = "the micro-ops exceed the UOP buffer";
  else if (via && !addOperandsCanUseInput(cfg))
    e.why_not = "the operands through INP need requantising GEMMs and INP entries like OUT's";
  else if (via && T * 2 * R > int64_t(cfg.depth(Memory::Input)))
    e.why_not = "a tile's two operands (" + std::to_string(2 * R) + " entries) exceed the INP buffer" +
                (T > 1 ? " halved for latency hiding" : "");
  if (!e.why_not.empty()) return e;
  e.fits = true;
  if (via) return estimateAddPlanViaInput(L, p, cfg, e);

  const double bus = cfg.axi_data_bits / 8.0, entry = cfg.entryBytes(Memory::Output);
  double compute = 0, store = 0, last_store = 0;
  // With two halves: when the compute module finishes each tile (it starts
  // once the previous tile is computed and the store of the tile before
  // that has freed its half), and when the store module finishes storing it
  // (once the tile is computed and the previous store is done), so that a
  // short last tile does not hide the store of a long one.
  double computed = 0, stored = 0, stored_before = 0;
  for (int64_t e0 = 0; e0 < E; e0 += R) {
    const int64_t cnt = std::min(R, E - e0);
    const double bytes = double(cnt) * entry;
    const double load = 2 * (kDmaOverheadCycles + bytes / bus);
    // A bias_clear pass loads its operand and bias once
    // (HwConfig::biasMissExtraCycles).
    const double alu = double(aluCyclesPerEntry(cfg) * cnt) + double(aluPasses(cfg)) * kPipelineOverheadCycles +
                       (offsetInReq(cfg) ? double(cfg.biasMissExtraCycles()) : 0.0);
    last_store = kDmaOverheadCycles + bytes / bus;
    e.load_cycles += load;
    e.alu_cycles += alu;
    e.store_cycles += last_store;
    e.dram_bytes += 3 * bytes;
    compute += load + alu;
    store += last_store;
    computed = std::max(computed, stored_before) + load + alu;
    stored_before = stored;
    stored = std::max(stored, computed) + last_store;
  }
  const double fill =
      2 * kDmaOverheadCycles + double(paramEntries(false) * cfg.entryBytes(Memory::Acc) + T * kUopsPerHalf * 4) / bus;
  // The compute module loads ACC itself, so loads and ALU passes are serial;
  // with two halves the store module drains one tile while the next computes.
  e.cycles = fill + (T > 1 ? stored : compute + store);
  return e;
}

TilePlan chooseAddTiling(const AddLayer& L, const hw::HwConfig& cfg, bool latency_hiding, CostEstimate* estimate) {
  TilePlan best;
  CostEstimate best_cost;
  best_cost.cycles = std::numeric_limits<double>::infinity();
  std::string last_reason = "no tile size";
  const int64_t E = entriesOf(L, cfg);
  for (const bool via : addOperandsCanUseInput(cfg) ? std::vector<bool>{false, true} : std::vector<bool>{false})
    for (int threads : latency_hiding ? std::vector<int>{2, 1} : std::vector<int>{1}) {
      int64_t most = std::min<int64_t>(E, (int64_t(cfg.depth(Memory::Acc)) - paramEntries(via)) / threads / 2);
      if (via) most = std::min<int64_t>(most, int64_t(cfg.depth(Memory::Input)) / threads / 2);
      for (int64_t rows = std::max<int64_t>(most, 1); rows >= 1; --rows) {
        TilePlan p;
        p.rows = rows;
        p.threads = threads;
        p.residual_via_input = via;
        const CostEstimate e = estimateAddPlan(L, p, cfg);
        if (!e.fits) {
          last_reason = e.why_not;
          continue;
        }
        if (e.cycles < best_cost.cycles) best = p, best_cost = e;
      }
    }
  if (!best_cost.fits)
    throw DoesNotFit("layer '" + L.name + "': no tiling fits the on-chip buffers of config '" + cfg.name +
                     "' (smallest tile: " + last_reason + ")");
  if (estimate) *estimate = best_cost;
  return best;
}

ArenaPlacement standaloneAddPlacement(const AddLayer& L, const hw::HwConfig& cfg) {
  const uint64_t bytes = alignUp(
      uint64_t(
          rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, configInterleave(cfg) * cfg.block_out).bytes()),
      kArenaAlign);
  ArenaPlacement p;
  p.r_offset = int64_t(bytes);
  p.y_offset = int64_t(2 * bytes);
  return p;
}

ConvProgram generateAddProgram(const AddLayer& L, const TilePlan& plan, const hw::HwConfig& cfg,
                               uint64_t constants_offset, const ArenaPlacement& placement) {
  if (constants_offset % kArenaAlign) throw std::invalid_argument("constants offset must be 4 KiB aligned");
  ConvProgram out;
  out.y_block = configInterleave(cfg) * cfg.block_out;
  out.plan = plan;
  out.estimate = estimateAddPlan(L, plan, cfg);
  if (!out.estimate.fits)
    throw std::runtime_error("layer '" + L.name + "': tiling does not fit: " + out.estimate.why_not);
  for (int64_t offset : {placement.x_offset, placement.r_offset, placement.y_offset})
    if (offset < 0 || uint64_t(offset) % kArenaAlign)
      throw std::invalid_argument("layer '" + L.name + "': arena offset " + std::to_string(offset) +
                                  " is not a multiple of " + std::to_string(kArenaAlign));
  const rt::accel::PackedGeometry g =
      rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, configInterleave(cfg) * cfg.block_out);
  out.x_offset = placement.x_offset;
  out.r_offset = placement.r_offset;
  out.y_offset = placement.y_offset;
  out.io_bytes = std::max({out.x_offset, out.r_offset, out.y_offset}) + g.bytes();
  const bool via = plan.residual_via_input;
  const int64_t T = plan.threads, R = plan.rows, E = entriesOf(L, cfg), P = paramEntries(via);
  const uint32_t entry = cfg.entryBytes(Memory::Output), acc_entry = cfg.entryBytes(Memory::Acc);
  const uint32_t wgt_entry = cfg.entryBytes(Memory::Weight);
  const uint64_t x_base = uint64_t(out.x_offset) / entry, r_base = uint64_t(out.r_offset) / entry,
                 y_base = uint64_t(out.y_offset) / entry;

  // Constants: the parameter vectors (ACC entries of int32 lanes), the
  // micro-ops, and in the INP form an identity weight block.
  const int64_t lanes = acc_entry / 4;
  const IntegerAddForm& f = L.form;
  std::vector<int32_t> params(size_t(P * lanes));
  for (int64_t j = 0; j < lanes; ++j) {
    params[size_t(kMulA * lanes + j)] = f.ma;
    params[size_t(kMulB * lanes + j)] = f.mb;
    params[size_t(kOffset * lanes + j)] = f.k;
    params[size_t(kReqOperand * lanes + j)] = mulShrOperand(1, f.shift);
  }
  const uint64_t uops_at = alignUp(uint64_t(P) * acc_entry, 4);
  const int64_t half = (int64_t(cfg.depth(Memory::Acc)) - P) / T;
  // Per half v: ACC/OUT entries a (A, then the sum) and b (B); INP entries
  // of A and B in the INP form.
  auto accA = [&](int64_t v) { return uint32_t(P + v * half); };
  auto accB = [&](int64_t v) { return uint32_t(P + v * half + R); };
  auto inpA = [&](int64_t v) { return uint32_t(v * 2 * R); };
  auto inpB = [&](int64_t v) { return uint32_t(v * 2 * R + R); };
  const int64_t U = uopsPerHalf(via), alu_uops = via ? kGemmUops : 0;
  std::vector<hw::Uop> uops;
  for (int64_t v = 0; v < T; ++v) {
    const uint32_t a = accA(v), b = accB(v);
    if (via) {
      uops.push_back({a, inpA(v), 0});
      uops.push_back({b, inpB(v), 0});
    }
    uops.push_back({a, uint32_t(kMulA), 0});
    uops.push_back({b, uint32_t(kMulB), 0});
    uops.push_back({a, b, 0});
    uops.push_back({a, uint32_t(kOffset), 0});
    uops.push_back({a, uint32_t(kReqOperand), 0});
  }
  const uint64_t wgt_at = alignUp(uops_at + uops.size() * 4, wgt_entry);

  rt::accel::DeviceProgram& prog = out.program;
  prog.name = L.name;
  auto emit = [&](const hw::Instruction& insn, Region region = Region::None) {
    prog.insns.push_back(insn);
    prog.regions.push_back(region);
    return prog.insns.size() - 1;
  };
  emit(hw::makeLoad(Memory::Uop, 0, (constants_offset + uops_at) / 4, 1, uint32_t(uops.size()), uint32_t(uops.size())),
       Region::Constants);
  emit(hw::makeLoad(Memory::Acc, 0, constants_offset / acc_entry, 1, uint32_t(P), uint32_t(P)), Region::Constants);
  if (via) {
    emit(hw::makeLoad(Memory::Weight, 0, (constants_offset + wgt_at) / wgt_entry, 1, 1, 1), Region::Constants);
    hw::Instruction set;  // the GEMMs' reductions start from zero
    set.opcode = hw::Opcode::SetReq;
    set.alu_op = hw::AluOp::Req;
    set.sram_base = uint32_t(kOffset);
    emit(set);
  }

  const int64_t I = ceilDiv(E, R);
  for (int64_t i = 0; i < I; ++i) {
    const int64_t e0 = i * R, cnt = std::min(R, E - e0), v = i % T;
    const uint32_t a = accA(v), b = accB(v);
    size_t first_compute = 0;
    if (via) {
      // The load module fills INP half v once the GEMMs of tile i-T are
      // done with it; the GEMMs wait for both operands.
      const size_t load_a = emit(
          hw::makeLoad(Memory::Input, inpA(v), x_base + uint64_t(e0), 1, uint32_t(cnt), uint32_t(cnt)), Region::Io);
      if (i >= T) prog.insns[load_a].pop_next = true;
      const size_t load_b = emit(
          hw::makeLoad(Memory::Input, inpB(v), r_base + uint64_t(e0), 1, uint32_t(cnt), uint32_t(cnt)), Region::Io);
      prog.insns[load_b].push_next = true;
      auto gemm = [&](int64_t uop) {
        hw::LoopNest l;
        l.uop_begin = uint32_t(v * U + uop);
        l.uop_end = l.uop_begin + 1;
        l.iter_in = uint32_t(cnt);
        l.dst_in = l.src_in = 1;
        hw::Instruction g = hw::makeGemm(l);
        g.requant = true;
        return emit(g);
      };
      first_compute = gemm(0);
      prog.insns[first_compute].pop_prev = true;
      const size_t second = gemm(1);
      if (i + T < I) prog.insns[second].push_prev = true;  // INP half v is free
    } else {
      first_compute =
          emit(hw::makeLoad(Memory::Acc8, a, x_base + uint64_t(e0), 1, uint32_t(cnt), uint32_t(cnt)), Region::Io);
      emit(hw::makeLoad(Memory::Acc8, b, r_base + uint64_t(e0), 1, uint32_t(cnt), uint32_t(cnt)), Region::Io);
    }
    if (i >= T) prog.insns[first_compute].pop_next = true;  // the store of tile i-T has read this half

    auto pass = [&](int64_t uop, bool src_moves) {
      hw::LoopNest l;
      l.uop_begin = uint32_t(v * U + alu_uops + uop);
      l.uop_end = l.uop_begin + 1;
      l.iter_in = uint32_t(cnt);
      l.dst_in = 1;
      l.src_in = src_moves ? 1 : 0;
      return l;
    };
    emit(hw::makeAlu(hw::AluOp::Mul, pass(0, false)));
    emit(hw::makeAlu(hw::AluOp::Mul, pass(1, false)));
    emit(hw::makeAlu(hw::AluOp::Add, pass(2, true)));
    if (!offsetInReq(cfg)) emit(hw::makeAlu(hw::AluOp::Add, pass(3, false)));
    const size_t last = emitRoundAndClip(cfg, pass(4, false), [&](const hw::Instruction& insn) { return emit(insn); });
    prog.insns[last].bias_clear = offsetInReq(cfg);
    prog.insns[last].push_next = true;

    const size_t store = emit(hw::makeStore(a, y_base + uint64_t(e0), 1, uint32_t(cnt), uint32_t(cnt)), Region::Io);
    prog.insns[store].pop_prev = true;
    if (i <= I - 1 - T) prog.insns[store].push_prev = true;
  }
  emit(hw::makeFinish());

  finishAluProgram(out, L.name, cfg, params, uops_at, uops);
  if (via) {
    out.constants.resize(std::max<size_t>(out.constants.size(), alignUp(wgt_at + wgt_entry, kArenaAlign)), 0);
    for (int64_t k = 0; k < int64_t(cfg.block_out); ++k)
      out.constants[size_t(wgt_at + uint64_t(k * cfg.block_in + k))] = 1;
  }
  return out;
}

}  // namespace vdla::accel
