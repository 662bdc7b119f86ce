// Quantised global average pooling on the accelerator: tiling, cost model and
// program (global_pool_layer.h). A tile is `rows` channel blocks (planes of
// the packed input, H*W consecutive pixels of E entries each: E =
// configInterleave, 1 but on a config with an interleave); with latency hiding ACC and
// OUT are split in two halves used by alternating tiles, so that the store of
// one tile overlaps the load and ALU passes of the next.
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "alu_program_constants.h"
#include "round_and_clip.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/global_pool_layer.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/runtime/accel/packed_layout.h"

namespace vdla::accel {

namespace {

using hw::Memory;
using rt::accel::Region;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Parameter vectors at the bottom of ACC: the offset c and the multiplier and
// shift's operand (round_and_clip.h).
enum Param : int64_t { kOffset = 0, kScale = 1 };
constexpr int64_t kParamEntries = 2;
// Micro-ops per half: MOV of the first pixel, ADD of the others (one per
// entry of a pixel), SHR left by the pre-shift, ADD of the offset, and the
// scaling, rounding and clip.
int64_t uopsPerHalf(int64_t E) { return 4 + E; }
enum Uop : int64_t { kFirst = 0, kRest = 1 };  // then kRest + E: SHR, offset, scaling
int64_t afterRest(int64_t E, int64_t k) { return kRest + E + k; }

// Channels per plane: block_out, or block_in with an interleave.
int64_t planeBlock(const hw::HwConfig& cfg) { return configInterleave(cfg) * cfg.block_out; }
int64_t planesOf(const GlobalPoolLayer& L, const hw::HwConfig& cfg) {
  return ceilDiv(L.n, cfg.batch) * ceilDiv(L.c, planeBlock(cfg));
}

}  // namespace

CostEstimate estimateGlobalPoolPlan(const GlobalPoolLayer& L, const TilePlan& p, const hw::HwConfig& cfg) {
  CostEstimate e;
  const int64_t T = p.threads, G = p.rows, planes = planesOf(L, cfg), area = L.h * L.w, E = configInterleave(cfg);
  const int64_t half = (int64_t(cfg.depth(Memory::Acc)) - kParamEntries) / T;
  const int64_t iter_limit = (int64_t(1) << cfg.loop_iter_bits) - 1;
  const int64_t xfer_limit = (int64_t(1) << cfg.xfer_size_bits) - 1;
  if (G < 1 || G > planes)
    e.why_not = "tile outside the layer";
  else if (G * (area + 1) * E > half)
    e.why_not = "a tile's input and output (" + std::to_string(G * (area + 1) * E) + " entries) exceed the ACC buffer" +
                (T > 1 ? " halved for latency hiding" : "");
  else if (G * E > iter_limit || area > iter_limit || G * E > xfer_limit || area * E > xfer_limit)
    e.why_not = "tile exceeds the loop or transfer size fields";
  else if (T * uopsPerHalf(E) > int64_t(cfg.depth(Memory::Uop)))
    e.why_not = "the micro-ops exceed the UOP buffer";
  if (!e.why_not.empty()) return e;
  e.fits = true;

  const double bus = cfg.axi_data_bits / 8.0, entry = cfg.entryBytes(Memory::Output);
  double compute = 0, store = 0, last_store = 0;
  for (int64_t p0 = 0; p0 < planes; p0 += G) {
    const int64_t g = std::min(G, planes - p0);
    const double in_bytes = double(g * area * E) * entry, out_bytes = double(g * E) * entry;
    const double load = kDmaOverheadCycles + in_bytes / bus;
    // MOV and ADD read an operand that changes with every vector: two ACC
    // reads each (HwConfig::tensorAluCyclesPerVector); SHR, ADD and the
    // scaling one cycle each.
    const int64_t after = (L.form.pre_shift > 0 ? 2 : 1) + roundAndClipPasses(cfg);
    const int64_t passes = (area > 1 ? 2 : 1) + after;
    const int64_t tensor = int64_t(cfg.tensorAluCyclesPerVector());
    const double alu = double((tensor * g * area + after * g) * E) + double(passes) * kPipelineOverheadCycles;
    last_store = kDmaOverheadCycles + out_bytes / bus;
    e.load_cycles += load;
    e.alu_cycles += alu;
    e.store_cycles += last_store;
    e.dram_bytes += in_bytes + out_bytes;
    compute += load + alu;
    store += last_store;
  }
  const double fill =
      2 * kDmaOverheadCycles + double(kParamEntries * cfg.entryBytes(Memory::Acc) + T * uopsPerHalf(E) * 4) / bus;
  e.cycles = fill + (T > 1 ? std::max(compute, store) + last_store : compute + store);
  return e;
}

TilePlan chooseGlobalPoolTiling(const GlobalPoolLayer& L, const hw::HwConfig& cfg, bool latency_hiding,
                                CostEstimate* estimate) {
  TilePlan best;
  CostEstimate best_cost;
  best_cost.cycles = std::numeric_limits<double>::infinity();
  std::string last_reason = "no tile size";
  for (int threads : latency_hiding ? std::vector<int>{2, 1} : std::vector<int>{1})
    for (int64_t rows = 1; rows <= planesOf(L, cfg); ++rows) {
      TilePlan p;
      p.rows = rows;
      p.threads = threads;
      const CostEstimate e = estimateGlobalPoolPlan(L, p, cfg);
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

ArenaPlacement standaloneGlobalPoolPlacement(const GlobalPoolLayer& L, const hw::HwConfig& cfg) {
  const rt::accel::PackedGeometry xg = rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, planeBlock(cfg));
  ArenaPlacement p;
  p.y_offset = static_cast<int64_t>(alignUp(static_cast<uint64_t>(xg.bytes()), kArenaAlign));
  return p;
}

ConvProgram generateGlobalPoolProgram(const GlobalPoolLayer& L, const TilePlan& plan, const hw::HwConfig& cfg,
                                      uint64_t constants_offset, const ArenaPlacement& placement) {
  if (constants_offset % kArenaAlign) throw std::invalid_argument("constants offset must be 4 KiB aligned");
  ConvProgram out;
  out.y_block = planeBlock(cfg);
  out.plan = plan;
  out.estimate = estimateGlobalPoolPlan(L, plan, cfg);
  if (!out.estimate.fits)
    throw std::runtime_error("layer '" + L.name + "': tiling does not fit: " + out.estimate.why_not);
  for (int64_t offset : {placement.x_offset, placement.y_offset})
    if (offset < 0 || uint64_t(offset) % kArenaAlign)
      throw std::invalid_argument("layer '" + L.name + "': arena offset " + std::to_string(offset) +
                                  " is not a multiple of " + std::to_string(kArenaAlign));
  const rt::accel::PackedGeometry xg = rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, out.y_block);
  const rt::accel::PackedGeometry yg = rt::accel::packedGeometry({L.n, L.c, 1, 1}, cfg.batch, out.y_block);
  out.x_offset = placement.x_offset;
  out.y_offset = placement.y_offset;
  out.io_bytes = std::max(out.x_offset + xg.bytes(), out.y_offset + yg.bytes());
  const int64_t T = plan.threads, G = plan.rows, area = L.h * L.w, planes = planesOf(L, cfg), P = kParamEntries;
  const int64_t E = configInterleave(cfg), U = uopsPerHalf(E);  // entries per pixel, micro-ops per half
  const uint32_t entry = cfg.entryBytes(Memory::Output), acc_entry = cfg.entryBytes(Memory::Acc);
  const uint64_t x_base = uint64_t(out.x_offset) / entry, y_base = uint64_t(out.y_offset) / entry;

  // Constants: the parameter vectors (ACC entries of int32 lanes), then the micro-ops.
  const int64_t lanes = acc_entry / 4;
  const ScaledForm& f = L.form;
  std::vector<int32_t> params(size_t(P * lanes));
  for (int64_t j = 0; j < lanes; ++j) {
    params[size_t(kOffset * lanes + j)] = f.c;
    params[size_t(kScale * lanes + j)] = mulShrOperand(f.m, f.shift);
  }
  const uint64_t uops_at = alignUp(uint64_t(P) * acc_entry, 4);
  // Per half: the tile's input planes, then E output entries per plane.
  const int64_t half = (int64_t(cfg.depth(Memory::Acc)) - P) / T;
  std::vector<hw::Uop> uops;
  for (int64_t v = 0; v < T; ++v) {
    const uint32_t in = uint32_t(P + v * half), sums = uint32_t(in + G * area * E);
    uops.push_back({sums, in, 0});
    for (int64_t e = 0; e < E; ++e) uops.push_back({sums + uint32_t(e), in + uint32_t(E + e), 0});
    uops.push_back({sums, 0, 0});  // SHR by an immediate: src unused
    uops.push_back({sums, uint32_t(kOffset), 0});
    uops.push_back({sums, uint32_t(kScale), 0});
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

  const int64_t I = ceilDiv(planes, G);
  for (int64_t i = 0; i < I; ++i) {
    const int64_t p0 = i * G, g = std::min(G, planes - p0), v = i % T;
    const uint32_t in = uint32_t(P + v * half);
    const size_t load = emit(hw::makeLoad(Memory::Acc8, in, x_base + uint64_t(p0 * area * E), uint32_t(g),
                                          uint32_t(area * E), uint32_t(area * E)),
                             Region::Io);
    if (i >= T) prog.insns[load].pop_next = true;  // the store of tile i-T has read this half

    // Passes over the tile's g * E sums.
    auto loop = [&](int64_t uop) {
      hw::LoopNest l;
      l.uop_begin = uint32_t(v * U + uop);
      l.uop_end = l.uop_begin + 1;
      l.iter_in = uint32_t(g * E);
      l.dst_in = 1;
      return l;
    };
    // The sum of each channel block: its first pixel (outer: plane, inner:
    // entry), then the others (outer: plane, inner: pixel, a micro-op per entry).
    hw::LoopNest first = loop(kFirst);
    if (E == 1) {
      first.src_in = uint32_t(area);
    } else {
      first.iter_out = uint32_t(g);
      first.dst_out = uint32_t(E);
      first.src_out = uint32_t(area * E);
      first.iter_in = uint32_t(E);
      first.src_in = 1;
    }
    emit(hw::makeAlu(hw::AluOp::Mov, first));
    if (area > 1) {
      hw::LoopNest rest = loop(kRest);
      rest.uop_end = rest.uop_begin + uint32_t(E);
      rest.iter_out = uint32_t(g);
      rest.dst_out = uint32_t(E);
      rest.src_out = uint32_t(area * E);
      rest.iter_in = uint32_t(area - 1);
      rest.dst_in = 0;
      rest.src_in = uint32_t(E);
      emit(hw::makeAlu(hw::AluOp::Add, rest));
    }
    if (f.pre_shift > 0) emit(hw::makeAluImm(hw::AluOp::Shr, loop(afterRest(E, 0)), -f.pre_shift));  // a left shift
    emit(hw::makeAlu(hw::AluOp::Add, loop(afterRest(E, 1))));
    const size_t last =
        emitRoundAndClip(cfg, loop(afterRest(E, 2)), [&](const hw::Instruction& insn) { return emit(insn); });
    prog.insns[last].push_next = true;

    const uint32_t sums = uint32_t(in + G * area * E);
    const size_t store =
        emit(hw::makeStore(sums, y_base + uint64_t(p0 * E), 1, uint32_t(g * E), uint32_t(g * E)), Region::Io);
    prog.insns[store].pop_prev = true;
    if (i <= I - 1 - T) prog.insns[store].push_prev = true;
  }
  emit(hw::makeFinish());

  finishAluProgram(out, L.name, cfg, params, uops_at, uops);
  return out;
}

}  // namespace vdla::accel
