#include "vdla/selftest/blocked_gemm.h"

#include <algorithm>
#include <cmath>

#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"

namespace vdla::selftest {
namespace {

using hw::Memory;

uint32_t ceilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

std::vector<uint32_t> candidateSizes(uint32_t limit) {
  std::vector<uint32_t> sizes;
  for (uint32_t s = 1; s < limit; s *= 2) sizes.push_back(s);
  sizes.push_back(limit);
  return sizes;
}

uint32_t uopCount(const GemmTiling& t) {
  uint32_t slots = t.double_buffer ? 2 : 1;
  return slots * slots * t.tk + 2 * slots;
}

std::string whyTilingDoesNotFit(const hw::HwConfig& cfg, const GemmTiling& t) {
  const uint64_t slots = t.double_buffer ? 2 : 1;
  if (t.tm == 0 || t.tn == 0 || t.tk == 0) return "tile sizes must be positive";
  if (slots * t.tm * t.tk > cfg.depth(Memory::Input)) return "input tiles exceed the input buffer";
  if (slots * t.tn * t.tk > cfg.depth(Memory::Weight)) return "weight tiles exceed the weight buffer";
  if (slots * t.tm * t.tn > cfg.depth(Memory::Acc)) return "accumulator tiles exceed the accumulator buffer";
  if (uopCount(t) > cfg.depth(Memory::Uop)) return "micro-op kernels exceed the micro-op buffer";
  if (slots > cfg.token_queue_depth) return "double buffering needs token queues of depth 2 or more";
  return "";
}

}  // namespace

GemmTiling chooseGemmTiling(const hw::HwConfig& cfg, const GemmShape& shape, bool double_buffer) {
  GemmTiling best;
  double best_cost = -1;
  for (uint32_t tm : candidateSizes(shape.m_blocks))
    for (uint32_t tn : candidateSizes(shape.n_blocks))
      for (uint32_t tk : candidateSizes(shape.k_blocks)) {
        GemmTiling t{tm, tn, tk, double_buffer};
        if (!whyTilingDoesNotFit(cfg, t).empty()) continue;
        // Bytes loaded from DRAM, plus a small charge per tile for instruction
        // overhead so that ties prefer larger tiles.
        const double tiles_m = ceilDiv(shape.m_blocks, tm), tiles_n = ceilDiv(shape.n_blocks, tn);
        const double chunks = tiles_m * tiles_n * ceilDiv(shape.k_blocks, tk);
        const double bytes = tiles_n * shape.m_blocks * shape.k_blocks * cfg.entryBytes(Memory::Input) +
                             tiles_m * shape.n_blocks * shape.k_blocks * cfg.entryBytes(Memory::Weight);
        const double cost = bytes + chunks * 64;
        if (best_cost < 0 || cost < best_cost) {
          best_cost = cost;
          best = t;
        }
      }
  if (best_cost < 0) throw Error("no GEMM tiling fits the buffers of config '" + cfg.name + "'");
  return best;
}

GemmProgram buildBlockedGemm(const hw::HwConfig& cfg, const GemmShape& shape, const GemmTiling& tiling, int shift,
                             const GemmBuffers& buffers) {
  std::string why = whyTilingDoesNotFit(cfg, tiling);
  if (!why.empty())
    throw Error("blocked GEMM tiling " + std::to_string(tiling.tm) + "x" + std::to_string(tiling.tn) + "x" +
                std::to_string(tiling.tk) + ": " + why);
  const uint32_t S = tiling.double_buffer ? 2 : 1;
  const uint32_t TM = tiling.tm, TN = tiling.tn, TK = tiling.tk;
  const uint32_t Mb = shape.m_blocks, Nb = shape.n_blocks, Kb = shape.k_blocks;

  GemmProgram prog;
  // Micro-op kernels: one GEMM kernel per (input/weight slot, acc slot), then a
  // reset kernel and an ALU kernel per acc slot.
  auto gemmKernel = [&](uint32_t s, uint32_t a) { return (s * S + a) * TK; };
  auto resetKernel = [&](uint32_t a) { return S * S * TK + a; };
  auto aluKernel = [&](uint32_t a) { return S * S * TK + S + a; };
  prog.uops.resize(uopCount(tiling));
  for (uint32_t s = 0; s < S; ++s)
    for (uint32_t a = 0; a < S; ++a)
      for (uint32_t k = 0; k < TK; ++k)
        prog.uops[gemmKernel(s, a) + k] = {a * TM * TN, s * TM * TK + k, s * TN * TK + k};
  for (uint32_t a = 0; a < S; ++a) {
    prog.uops[resetKernel(a)] = {a * TM * TN, 0, 0};
    prog.uops[aluKernel(a)] = {a * TM * TN, a * TM * TN, 0};
  }

  const uint64_t inp_base = buffers.inp / cfg.entryBytes(Memory::Input);
  const uint64_t wgt_base = buffers.wgt / cfg.entryBytes(Memory::Weight);
  const uint64_t out_base = buffers.out / cfg.entryBytes(Memory::Output);
  auto& code = prog.instructions;
  code.push_back(hw::makeLoad(Memory::Uop, 0, buffers.uop / hw::kUopBytes, 1, uint32_t(prog.uops.size()),
                              uint32_t(prog.uops.size())));

  const uint32_t tiles_m = ceilDiv(Mb, TM), tiles_n = ceilDiv(Nb, TN), chunks_per_tile = ceilDiv(Kb, TK);
  const uint32_t tiles = tiles_m * tiles_n, chunks = tiles * chunks_per_tile;
  uint32_t chunk = 0;
  for (uint32_t t = 0; t < tiles; ++t) {
    const uint32_t m0 = (t / tiles_n) * TM, n0 = (t % tiles_n) * TN;
    const uint32_t tm = std::min(TM, Mb - m0), tn = std::min(TN, Nb - n0);
    const uint32_t a = t % S;
    hw::LoopNest over_tile{resetKernel(a), resetKernel(a) + 1, tm, tn, tn, 1};
    hw::Instruction reset = hw::makeGemm(over_tile, /*reset=*/true);
    reset.pop_next = t >= S;  // the store of tile t-S has drained this acc slot
    code.push_back(reset);
    for (uint32_t kc = 0; kc < chunks_per_tile; ++kc, ++chunk) {
      const uint32_t k0 = kc * TK, tk = std::min(TK, Kb - k0), s = chunk % S;
      hw::Instruction load_inp =
          hw::makeLoad(Memory::Input, s * TM * TK, inp_base + uint64_t(m0) * Kb + k0, tm, tk, Kb);
      load_inp.pop_next = chunk >= S;  // compute has finished with this slot
      hw::Instruction load_wgt =
          hw::makeLoad(Memory::Weight, s * TN * TK, wgt_base + uint64_t(n0) * Kb + k0, tn, tk, Kb);
      load_wgt.push_next = true;
      hw::LoopNest nest{gemmKernel(s, a), gemmKernel(s, a) + tk, tm, tn, tn, 1, tk, 0, 0, tk};
      hw::Instruction gemm = hw::makeGemm(nest);
      gemm.pop_prev = true;
      gemm.push_prev = chunk + S < chunks;
      code.push_back(load_inp);
      code.push_back(load_wgt);
      code.push_back(gemm);
    }
    if (shift != 0) {
      hw::LoopNest nest{aluKernel(a), aluKernel(a) + 1, tm, tn, tn, 1, tn, 1};
      code.push_back(hw::makeAluImm(hw::AluOp::Shr, nest, shift));
    }
    code.back().push_next = true;  // tile ready for the store module
    hw::Instruction store = hw::makeStore(a * TM * TN, out_base + uint64_t(m0) * Nb + n0, tm, tn, Nb);
    store.pop_prev = true;
    store.push_prev = t + S < tiles;
    code.push_back(store);
  }
  code.push_back(hw::makeFinish());
  return prog;
}

std::vector<int8_t> referenceBlockedGemm(const hw::HwConfig& cfg, const GemmShape& shape, const std::vector<int8_t>& a,
                                         const std::vector<int8_t>& w, int shift) {
  const uint32_t B = cfg.batch, BI = cfg.block_in, BO = cfg.block_out;
  const uint32_t M = shape.m_blocks * B, N = shape.n_blocks * BO, K = shape.k_blocks * BI;
  auto aAt = [&](uint32_t m, uint32_t k) {
    return a[(size_t(m / B) * shape.k_blocks + k / BI) * B * BI + (m % B) * BI + k % BI];
  };
  auto wAt = [&](uint32_t n, uint32_t k) {
    return w[(size_t(n / BO) * shape.k_blocks + k / BI) * BO * BI + (n % BO) * BI + k % BI];
  };
  std::vector<int8_t> c(size_t(M) * N);
  for (uint32_t m = 0; m < M; ++m)
    for (uint32_t n = 0; n < N; ++n) {
      int64_t sum = 0;
      for (uint32_t k = 0; k < K; ++k) sum += int64_t(aAt(m, k)) * wAt(n, k);
      int32_t acc = int32_t(uint32_t(uint64_t(sum)));
      if (shift != 0) acc = shift > 0 ? acc >> std::min(shift, 31) : int32_t(uint32_t(acc) << std::min(-shift, 31));
      c[(size_t(m / B) * shape.n_blocks + n / BO) * B * BO + (m % B) * BO + n % BO] = int8_t(uint8_t(acc & 0xff));
    }
  return c;
}

}  // namespace vdla::selftest
