// The fused expansion + depthwise program (expanded_depthwise.h): constants,
// the software pipeline of (band, channel block) units and its tokens.
#include <algorithm>
#include <stdexcept>

#include "program_emitter.h"
#include "vdla/compiler/accel/alu_sequence.h"
#include "vdla/compiler/accel/depthwise_gemm.h"
#include "vdla/compiler/accel/expanded_depthwise.h"
#include "vdla/hw/instruction_builders.h"

namespace vdla::accel {

namespace {

using codegen::alignUp;
using codegen::Emitter;
using codegen::kRegionAlign;
using codegen::putI32;
using codegen::UopTable;
using hw::Instruction;
using hw::Memory;
using rt::accel::Region;

// The requantising pass of a layer whose GEMM requantises (layerBlocks'
// gemm_requant_form): its op, immediate and the (operand, bias) vectors.
struct Requant {
  hw::AluOp op = hw::AluOp::Req;
  int32_t imm = 0;
  std::vector<int32_t> operand, bias;
};
Requant requantOf(const ConvLayer& L, const hw::HwConfig& cfg) {
  const AluSequence seq = buildAluSequence(L, cfg);
  if (seq.after.size() != 1 || !seq.init.empty() || seq.after.front().bias_param < 0)
    throw std::logic_error("layer '" + L.name + "': not a lone requantising pass with its bias");
  const AluPass& p = seq.after.front();
  return {p.op, p.imm, seq.params[size_t(p.param)], seq.params[size_t(p.bias_param)]};
}

}  // namespace

ConvProgram generateExpandedDepthwiseProgram(const ConvLayer& D, const TilePlan& plan, const hw::HwConfig& cfg,
                                             uint64_t constants_offset, const ArenaPlacement& placement) {
  if (constants_offset % kRegionAlign) throw std::invalid_argument("constants offset must be 4 KiB aligned");
  ConvProgram out;
  out.plan = plan;
  out.estimate = estimateExpandedPlan(D, plan, cfg);
  if (!out.estimate.fits)
    throw std::runtime_error("layer '" + D.name + "': fused band does not fit: " + out.estimate.why_not);
  const ExpandedGeometry g = expandedGeometry(D, plan, cfg);
  const ConvLayer& E = *D.expansion;
  const int64_t T = g.threads, Q = g.blocks, CB = g.cin_blocks, W = D.w, R = plan.rows, BO = cfg.block_out;
  // WGT slot s holds a block's expansion weights at s * CB and its depthwise
  // weights at dw_slots_at + s * kh; block q's go to slot q % S. With S < Q
  // (one band) the slots form a ring.
  const int64_t S = g.weight_slots, dw_slots_at = S * CB;
  const bool ring = S < Q;
  auto slotOf = [&](int64_t q) { return q % S; };

  // ---- constants: weights (expansion, depthwise) | parameter pairs | padding entries | micro-ops
  const uint32_t wgt_entry = cfg.entryBytes(Memory::Weight), acc_entry = cfg.entryBytes(Memory::Acc);
  const uint32_t inp_entry = cfg.entryBytes(Memory::Input), out_entry = cfg.entryBytes(Memory::Output);
  out.constants = packWeights(E, cfg);
  if (out.constants.size() != size_t(Q * CB) * wgt_entry)
    throw std::logic_error("layer '" + D.name + "': expansion weights of an unexpected size");
  const int64_t dw_weights_at = Q * CB;  // in the constants
  const std::vector<uint8_t> dw = packDepthwiseWeights(D, cfg);
  out.constants.insert(out.constants.end(), dw.begin(), dw.end());
  // Parameter pairs (operand, bias) of block q: the expansion's at 2q, the
  // depthwise layer's of kernel-row variant v at 2*Q + 2*(v*Q + q); a
  // variant's bias adds what its skipped rows' zero-point inputs would.
  const uint64_t params_at = alignUp(out.constants.size(), kRegionAlign);
  out.constants.resize(params_at + uint64_t(g.params) * acc_entry, 0);
  const Requant re = requantOf(E, cfg), rd = requantOf(D, cfg);
  auto putVector = [&](int64_t entry_of_block0, int64_t step, const std::vector<int32_t>& v, int64_t channels) {
    for (int64_t o = 0; o < Q * BO; ++o)
      putI32(out.constants, params_at + uint64_t(entry_of_block0 + step * (o / BO)) * acc_entry + uint64_t(o % BO) * 4,
             o < channels ? v[size_t(o)] : 0);
  };
  putVector(0, 2, re.operand, E.o);
  putVector(1, 2, re.bias, E.o);
  for (size_t v = 0; v < g.skipped.size(); ++v) {
    std::vector<int32_t> bias = rd.bias;
    for (int64_t c = 0; c < D.o; ++c)
      for (int64_t ky : g.skipped[v])
        for (int64_t kx = 0; kx < D.kw; ++kx)
          bias[size_t(c)] += D.pad_value * int32_t(D.weights[size_t((c * D.kh + ky) * D.kw + kx)]);
    putVector(2 * Q + 2 * int64_t(v) * Q, 2, rd.operand, D.o);
    putVector(2 * Q + 2 * int64_t(v) * Q + 1, 2, bias, D.o);
  }
  // Entries of the input's zero point for the copied rows' padding columns.
  const int64_t pad_entries = std::max<int64_t>(1, g.left + g.right);
  const uint64_t pads_at = alignUp(out.constants.size(), kRegionAlign);
  out.constants.resize(pads_at + uint64_t(pad_entries) * inp_entry, uint8_t(int8_t(D.pad_value)));
  const uint64_t uops_at = alignUp(out.constants.size(), kRegionAlign);

  // ---- arena: X (the expansion's input, block_in entries) and Y
  out.y_block = BO;
  const rt::accel::PackedGeometry xg = rt::accel::packedGeometry({E.n, E.c, E.h, E.w}, cfg.batch, cfg.block_in);
  const rt::accel::PackedGeometry yg = rt::accel::packedGeometry({D.n, D.o, D.oh, D.ow}, cfg.batch, BO);
  for (int64_t offset : {placement.x_offset, placement.y_offset})
    if (offset < 0 || uint64_t(offset) % kArenaAlign)
      throw std::invalid_argument("layer '" + D.name + "': arena offset " + std::to_string(offset) +
                                  " is not a multiple of " + std::to_string(kArenaAlign));
  out.x_offset = placement.x_offset;
  out.y_offset = placement.y_offset;
  out.io_bytes = std::max(out.x_offset + xg.bytes(), out.y_offset + yg.bytes());
  const uint64_t x_base = uint64_t(out.x_offset) / inp_entry, y_base = uint64_t(out.y_offset) / out_entry;
  const uint64_t w_base = constants_offset / wgt_entry;
  const uint64_t pad_base = (constants_offset + pads_at) / inp_entry;

  // ---- on-chip regions, two halves each with latency hiding
  auto aHalf = [&](int64_t t) { return t * g.a_half; };                 // INP: the band's input rows
  auto bHalf = [&](int64_t t) { return T * g.a_half + t * g.b_half; };  // INP: the copied rows
  auto eHalf = [&](int64_t t) { return t * g.e_half; };                 // ACC/OUT: expanded rows
  auto dHalf = [&](int64_t t) { return T * g.e_half + t * g.d_half; };  // ACC/OUT: outputs
  const int64_t param_base = int64_t(cfg.depth(Memory::Acc)) - g.params;

  Emitter em;
  em.program.name = D.name;
  UopTable uops;
  const size_t uop_load =
      em.emit(hw::makeLoad(Memory::Uop, 0, (constants_offset + uops_at) / 4, 1, 1, 1), Region::Constants);
  em.emit(hw::makeLoad(Memory::Acc, uint32_t(param_base), (constants_offset + params_at) / acc_entry, 1,
                       uint32_t(g.params), uint32_t(g.params)),
          Region::Constants);
  // The padding columns of both halves of the copied rows (never written by
  // a copy), a load per row boundary.
  auto padLoad = [&](int64_t sram, int64_t n) {
    if (n > 0)
      em.emit(hw::makeLoad(Memory::Input, uint32_t(sram), pad_base, 1, uint32_t(n), uint32_t(n)), Region::Constants);
  };
  for (int64_t t = 0; t < T; ++t) {
    padLoad(bHalf(t), g.left);
    for (int64_t r = 0; r + 1 < g.rows_window; ++r) padLoad(bHalf(t) + r * g.pitch + g.left + W, g.right + g.left);
    padLoad(bHalf(t) + (g.rows_window - 1) * g.pitch + g.left + W, g.right);
  }

  struct Band {
    int64_t oh0, rows, first_row, lo, hi;  // output rows; the window's first image row; the rows computed
  };
  std::vector<Band> bands;
  for (int64_t b = 0; b < g.bands; ++b) {
    Band x;
    x.oh0 = b * R;
    x.rows = std::min(R, D.oh - x.oh0);
    x.first_row = x.oh0 * D.sh - D.pad_top;
    x.lo = std::max<int64_t>(0, x.first_row);
    x.hi = std::min(D.h, (x.oh0 + x.rows - 1) * D.sh - D.pad_top + D.kh);
    bands.push_back(x);
  }
  // The band's input rows of every input block into half b % T; the group's
  // first load waits for the expansion of band b - T to be done with the
  // half, its last tells compute the rows are in.
  auto bandLoads = [&](int64_t b) {
    const Band& x = bands[size_t(b)];
    std::vector<size_t> loads;
    for (int64_t cb = 0; cb < CB; ++cb)
      loads.push_back(em.emit(
          hw::makeLoad(Memory::Input, uint32_t(aHalf(b % T) + cb * g.rows_in_max * W),
                       x_base + uint64_t((cb * E.h + x.lo) * W), uint32_t(x.hi - x.lo), uint32_t(W), uint32_t(W)),
          Region::Io));
    if (b >= T) em.at(loads.front()).pop_next = true;
    em.at(loads.back()).push_next = true;
  };

  auto setReq = [&](const Requant& r, int64_t entry) {
    Instruction set;
    set.opcode = hw::Opcode::SetReq;
    set.alu_op = r.op;
    set.imm = r.imm;
    set.sram_base = uint32_t(param_base + entry);
    return set;
  };
  const int64_t K = g.bands * Q;
  // Unit k = (band k / Q, block k % Q) uses halves k % T of the expanded
  // rows, the copied rows and the outputs.
  auto expand = [&](int64_t k) {
    const int64_t b = k / Q, q = k % Q, t = k % T;
    const Band& x = bands[size_t(b)];
    em.emit(setReq(re, 2 * q));
    std::vector<hw::Uop> kernel;
    for (int64_t cb = 0; cb < CB; ++cb)
      kernel.push_back(
          {uint32_t(eHalf(t)), uint32_t(aHalf(b % T) + cb * g.rows_in_max * W), uint32_t(slotOf(q) * CB + cb)});
    const auto range = uops.add(kernel);
    hw::LoopNest l;
    l.uop_begin = range.first;
    l.uop_end = range.second;
    l.iter_out = uint32_t(x.hi - x.lo);
    l.iter_in = uint32_t(W);
    l.dst_out = l.src_out = uint32_t(W);
    l.dst_in = l.src_in = 1;
    Instruction gemm = hw::makeGemm(l);
    gemm.requant = true;
    gemm.pop_prev = q == 0 || b == 0;                // the band's input rows (band 0: block q's weights) are in
    gemm.push_next = true;                           // the expanded rows are in OUT
    gemm.push_prev = q == Q - 1 && b + T < g.bands;  // the band's input half is free
    em.emit(gemm);
    // The store module copies them into the depthwise layer's padded rows.
    Instruction copy = hw::makeStore(uint32_t(eHalf(t)), uint64_t(bHalf(t) + (x.lo - x.first_row) * g.pitch + g.left),
                                     uint32_t(x.hi - x.lo), uint32_t(W), uint32_t(g.pitch));
    copy.memory = Memory::Input;
    copy.pop_prev = copy.push_prev = true;
    em.emit(copy);
  };
  auto depthwise = [&](int64_t k) {
    const int64_t b = k / Q, q = k % Q, t = k % T;
    const Band& x = bands[size_t(b)];
    std::vector<size_t> dwgemms;
    for (int64_t oy = x.oh0; oy < x.oh0 + x.rows;) {
      const int v = g.row_variant[size_t(oy)];
      int64_t end = oy;
      while (end < x.oh0 + x.rows && g.row_variant[size_t(end)] == v) ++end;
      em.emit(setReq(rd, 2 * Q + 2 * v * Q + 2 * q));
      std::vector<hw::Uop> kernel;
      for (int64_t ky = 0; ky < D.kh; ++ky) {
        const std::vector<int64_t>& skip = g.skipped[size_t(v)];
        if (std::find(skip.begin(), skip.end(), ky) != skip.end()) continue;
        kernel.push_back({uint32_t(dHalf(t) + (oy - x.oh0) * D.ow),
                          uint32_t(bHalf(t) + ((oy - x.oh0) * D.sh + ky) * g.pitch),
                          uint32_t(dw_slots_at + slotOf(q) * D.kh + ky)});
      }
      const auto range = uops.add(kernel);
      hw::LoopNest l;
      l.uop_begin = range.first;
      l.uop_end = range.second;
      l.iter_out = uint32_t(end - oy);
      l.dst_out = uint32_t(D.ow);
      l.src_out = uint32_t(D.sh * g.pitch);
      l.iter_in = uint32_t(g.run);
      l.dst_in = 1;
      l.src_in = 1;
      l.wgt_out = 0;
      Instruction dwgemm = hw::makeDwGemm(l, uint32_t(D.kw), uint32_t(D.sw));
      dwgemm.requant = true;
      dwgemms.push_back(em.emit(dwgemm));
      oy = end;
    }
    em.at(dwgemms.front()).pop_next = true;                         // the copy is in INP
    em.at(dwgemms.back()).push_next = true;                         // the outputs are in OUT
    if (ring && k + S < Q) em.at(dwgemms.back()).push_prev = true;  // block q's slot is free

    // The band's outputs of block q: whole rows, one transfer.
    Instruction st = hw::makeStore(uint32_t(dHalf(t)), y_base + uint64_t((q * D.oh + x.oh0) * D.ow), 1,
                                   uint32_t(x.rows * D.ow), uint32_t(x.rows * D.ow));
    st.pop_prev = true;
    em.emit(st, Region::Io);
  };

  // Both layers' weights load a group per block, so that block q's
  // expansion in band 0 waits for its own only. Block 0's go first, before
  // band 0's rows, which in a chain wait for the layer before to store them;
  // band b+1's rows follow band b's first expansion (with one half, its
  // last: the half must be free). Resident weights stay for the later
  // bands; a ring's slot is refilled once the depthwise layer of the unit
  // before is done with it, in program order right after that unit.
  auto blockWeights = [&](int64_t q) {
    const int64_t s = slotOf(q);
    const size_t first = em.emit(
        hw::makeLoad(Memory::Weight, uint32_t(s * CB), w_base + uint64_t(q * CB), 1, uint32_t(CB), uint32_t(CB)),
        Region::Constants);
    const size_t last =
        em.emit(hw::makeLoad(Memory::Weight, uint32_t(dw_slots_at + s * D.kh),
                             w_base + uint64_t(dw_weights_at + q * D.kh), 1, uint32_t(D.kh), uint32_t(D.kh)),
                Region::Constants);
    em.at(last).push_next = q > 0;  // block 0's travel with band 0's rows
    return first;
  };
  auto depthwiseAndRefill = [&](int64_t k) {
    depthwise(k);
    if (ring && k + S < Q) em.at(blockWeights(k + S)).pop_next = true;
  };
  blockWeights(0);
  bandLoads(0);
  for (int64_t q = 1; q < S; ++q) blockWeights(q);
  const int64_t lag = T - 1;
  for (int64_t k = 0; k < K; ++k) {
    expand(k);
    const int64_t b = k / Q, q = k % Q;
    if (b + 1 < g.bands && q == (T == 1 ? Q - 1 : 0)) bandLoads(b + 1);
    if (k - lag >= 0) depthwiseAndRefill(k - lag);
  }
  for (int64_t k = std::max<int64_t>(0, K - lag); k < K; ++k) depthwiseAndRefill(k);
  em.emit(hw::makeFinish());

  codegen::placeMicroOps(em, uops, uop_load, uops_at, cfg, D.name, out.constants, out.program);
  return out;
}

}  // namespace vdla::accel
