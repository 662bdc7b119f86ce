// Quantised additions on the accelerator: tiling, cost model and program
// (add_layer.h). A tile is a run of consecutive entries of the packed
// tensors, which A, B and C share entry for entry; with latency hiding ACC and
// OUT are split in two halves used by alternating tiles, so that the store of
// one tile overlaps the loads and ALU passes of the next.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "alu_program_constants.h"
#include "vdla/compiler/accel/add_layer.h"
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
enum Param : int64_t { kMulA = 0, kMulB = 1, kReqOperand = 2, kOffset = 3 };
constexpr int64_t kParamEntries = 4;

// With REQ and bias_clear the offset rides in the REQ (which adds ACC[src+1]
// first) instead of a pass of its own; the REQ's zeroing of the accumulators
// is harmless, since the next tile in those entries loads A over them.
bool offsetInReq(const hw::HwConfig& cfg) { return cfg.fused_requant && cfg.alu_bias_clear; }

// One micro-op per ALU pass and half: MUL A, MUL B, ADD B to A, ADD the
// offset (unused when it rides in the REQ), and the rounding shift with the
// clip (one REQ, or MULSHR and CLIP).
constexpr int64_t kUopsPerHalf = 5;
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

CostEstimate estimateAddPlan(const AddLayer& L, const TilePlan& p, const hw::HwConfig& cfg) {
  CostEstimate e;
  const int64_t T = p.threads, R = p.rows, E = entriesOf(L, cfg);
  const int64_t half = (int64_t(cfg.depth(Memory::Acc)) - kParamEntries) / T;
  const int64_t iter_limit = (int64_t(1) << cfg.loop_iter_bits) - 1;
  const int64_t xfer_limit = (int64_t(1) << cfg.xfer_size_bits) - 1;
  if (R < 1 || R > E)
    e.why_not = "tile outside the layer";
  else if (2 * R > half)
    e.why_not = "a tile's two operands (" + std::to_string(2 * R) + " entries) exceed the ACC buffer" +
                (T > 1 ? " halved for latency hiding" : "");
  else if (R > iter_limit || R > xfer_limit)
    e.why_not = "tile exceeds the loop or transfer size fields";
  else if (T * kUopsPerHalf > int64_t(cfg.depth(Memory::Uop)))
    e.why_not = "the micro-ops exceed the UOP buffer";
  if (!e.why_not.empty()) return e;
  e.fits = true;

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
      2 * kDmaOverheadCycles + double(kParamEntries * cfg.entryBytes(Memory::Acc) + T * kUopsPerHalf * 4) / bus;
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
  for (int threads : latency_hiding ? std::vector<int>{2, 1} : std::vector<int>{1}) {
    const int64_t most = std::min<int64_t>(E, (int64_t(cfg.depth(Memory::Acc)) - kParamEntries) / threads / 2);
    for (int64_t rows = std::max<int64_t>(most, 1); rows >= 1; --rows) {
      TilePlan p;
      p.rows = rows;
      p.threads = threads;
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
  const int64_t T = plan.threads, R = plan.rows, E = entriesOf(L, cfg), P = kParamEntries;
  const uint32_t entry = cfg.entryBytes(Memory::Output), acc_entry = cfg.entryBytes(Memory::Acc);
  const uint64_t x_base = uint64_t(out.x_offset) / entry, r_base = uint64_t(out.r_offset) / entry,
                 y_base = uint64_t(out.y_offset) / entry;

  // Constants: the parameter vectors (ACC entries of int32 lanes), then the micro-ops.
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
  std::vector<hw::Uop> uops;
  for (int64_t v = 0; v < T; ++v) {
    const uint32_t a = uint32_t(P + v * half), b = uint32_t(P + v * half + R);
    uops.push_back({a, uint32_t(kMulA), 0});
    uops.push_back({b, uint32_t(kMulB), 0});
    uops.push_back({a, b, 0});
    uops.push_back({a, uint32_t(kOffset), 0});
    uops.push_back({a, uint32_t(kReqOperand), 0});
  }

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

  const int64_t I = ceilDiv(E, R);
  for (int64_t i = 0; i < I; ++i) {
    const int64_t e0 = i * R, cnt = std::min(R, E - e0), v = i % T;
    const uint32_t a = uint32_t(P + v * half), b = uint32_t(a + R);
    const size_t load_a =
        emit(hw::makeLoad(Memory::Acc8, a, x_base + uint64_t(e0), 1, uint32_t(cnt), uint32_t(cnt)), Region::Io);
    if (i >= T) prog.insns[load_a].pop_next = true;  // the store of tile i-T has read this half
    emit(hw::makeLoad(Memory::Acc8, b, r_base + uint64_t(e0), 1, uint32_t(cnt), uint32_t(cnt)), Region::Io);

    auto pass = [&](int64_t uop, bool src_moves) {
      hw::LoopNest l;
      l.uop_begin = uint32_t(v * kUopsPerHalf + uop);
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
  return out;
}

}  // namespace vdla::accel
