#include "vdla/compiler/accel/conv_codegen.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <stdexcept>

#include "vdla/compiler/accel/alu_sequence.h"
#include "vdla/compiler/accel/border_correction.h"
#include "vdla/compiler/accel/depthwise_gemm.h"
#include "vdla/compiler/accel/expanded_depthwise.h"
#include "program_emitter.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::accel {

namespace {

using hw::Instruction;
using hw::Memory;
using rt::accel::Region;

using codegen::alignUp;
using codegen::ceilDiv;
using codegen::Emitter;
using codegen::kRegionAlign;
using codegen::putI32;
using codegen::UopTable;

}  // namespace

std::vector<uint8_t> packWeights(const ConvLayer& L, const hw::HwConfig& cfg) {
  const int64_t BI = cfg.block_in, BO = cfg.block_out;
  const int64_t RB = maxInputBlocks(L, BI, BO), OCB = outputBlocks(L, cfg), kk = L.kh * L.kw;
  const int64_t entry = BO * BI;
  const int64_t c_per_g = L.c / L.group, o_per_g = L.o / L.group;
  // Entry (ocb, r) holds input block first(ocb) + r; blocks past a group's
  // channels stay zero.
  std::vector<uint8_t> out(static_cast<size_t>(OCB * RB * kk * entry), 0);
  for (int64_t o = 0; o < L.o; ++o) {
    const BlockRange range = inputBlocksOf(L, o / BO, BI, BO);
    const int64_t g = o / o_per_g;
    for (int64_t cl = 0; cl < c_per_g; ++cl) {
      const int64_t c = g * c_per_g + cl;
      for (int64_t k = 0; k < kk; ++k) {
        const int64_t e = ((o / BO) * RB + c / BI - range.first) * kk + k;
        out[static_cast<size_t>(e * entry + (o % BO) * BI + c % BI)] =
            static_cast<uint8_t>(L.weights[static_cast<size_t>((o * c_per_g + cl) * kk + k)]);
      }
    }
  }
  return out;
}

ArenaPlacement standalonePlacement(const ConvLayer& L, const hw::HwConfig& cfg) {
  // (A fused expansion's input is the layer's: expanded_depthwise.h.)
  const ConvLayer& X = L.expansion ? *L.expansion : L;
  const rt::accel::PackedGeometry xg = rt::accel::packedGeometry({X.n, X.c, X.h, X.w}, cfg.batch, cfg.block_in);
  const rt::accel::PackedGeometry yg =
      rt::accel::packedGeometry({L.n, L.o, L.oh, L.ow}, cfg.batch, outputInterleave(L, cfg) * cfg.block_out);
  ArenaPlacement p;
  p.x_offset = 0;
  p.r_offset = static_cast<int64_t>(alignUp(static_cast<uint64_t>(xg.bytes()), kArenaAlign));
  p.y_offset =
      p.r_offset + (L.residual ? static_cast<int64_t>(alignUp(static_cast<uint64_t>(yg.bytes()), kArenaAlign)) : 0);
  return p;
}

ConvProgram generateConvProgram(const ConvLayer& L, const TilePlan& plan, const hw::HwConfig& cfg,
                                uint64_t constants_offset, const ArenaPlacement& placement) {
  if (L.expansion) return generateExpandedDepthwiseProgram(L, plan, cfg, constants_offset, placement);
  if (constants_offset % kRegionAlign) throw std::invalid_argument("constants offset must be 4 KiB aligned");
  ConvProgram out;
  out.plan = plan;
  out.estimate = estimatePlan(L, plan, cfg);
  if (!out.estimate.fits)
    throw std::runtime_error("layer '" + L.name + "': tiling does not fit: " + out.estimate.why_not);
  const LayerBlocks b = layerBlocks(L, cfg);
  const AluSequence seq = buildAluSequence(L, cfg);
  // CB: channel blocks of the input tensor; RB: reduction blocks per oc block
  // (all CB for a dense layer, the groups' blocks for a grouped one).
  const int64_t T = plan.threads, kk = L.kh * L.kw, CB = b.input_planes, RB = b.in_blocks, OCB = b.out_blocks;
  const bool dw = plan.dwgemm;  // DWGEMM (depthwise_gemm.h) instead of GEMM
  // The GEMMs requantise (extension gemm_requant): per tile and oc block a
  // SETREQ with the block's operand and bias, then a GEMM with requant whose
  // iterations each hold the block's whole reduction; no ALU pass after them
  // (a residual's scaling still runs before them).
  const bool gemm_requant = requantisesInGemm(b, plan);
  const int64_t ih_full = (plan.rows - 1) * L.sh + L.kh, iw_full = (plan.cols - 1) * L.sw + L.spanW();
  const int64_t tile_pixels = plan.rows * plan.cols;  // ACC entries per oc block of a tile
  const int64_t tile_entries = plan.oc_blocks * tile_pixels;
  // Output interleave (outputInterleave): a tile's ACC holds its oc blocks in
  // groups of G, each group pixel-major ([pixel][G]), so that a group stores
  // as whole block_in entries. With G = 1 the layout is [oc block][pixel].
  const int64_t G = b.out_group;
  auto accAt = [&](int64_t q, int64_t pixel) { return (q / G) * G * tile_pixels + pixel * G + q % G; };

  // ---- constant image of the layer: weights | parameter vectors | micro-ops
  const uint32_t acc_entry = cfg.entryBytes(Memory::Acc), wgt_entry = cfg.entryBytes(Memory::Weight);
  out.constants = dw ? packDepthwiseWeights(L, cfg) : packWeights(L, cfg);
  // A residual through INP: identity weight blocks after the weights, one
  // per oc block of an entry (block h takes channels h*block_out... of an
  // interleaved entry to the accumulator's lanes).
  const uint64_t identity_entry = out.constants.size() / wgt_entry;
  if (plan.residual_via_input) {
    out.constants.resize(out.constants.size() + G * wgt_entry, 0);
    for (int64_t h = 0; h < G; ++h)
      for (int64_t k = 0; k < int64_t(cfg.block_out); ++k)
        out.constants[size_t((identity_entry + uint64_t(h)) * wgt_entry +
                             uint64_t(k * cfg.block_in + h * cfg.block_out + k))] = 1;
  }
  const uint64_t params_at = alignUp(out.constants.size(), kRegionAlign);
  // Parameter vectors: the ALU sequence's, then the border corrections'.
  const std::vector<BorderCorrection> corrections = borderCorrections(L);
  std::vector<const std::vector<int32_t>*> vectors;
  for (const std::vector<int32_t>& v : seq.params) vectors.push_back(&v);
  for (const BorderCorrection& c : corrections) vectors.push_back(&c.values);
  // Vector k of oc block q is parameter entry vector_base[k] + vector_step[k] * q:
  // a region of OCB entries each, except that a bias_clear pass's operand and
  // bias alternate in one region of 2 * OCB (the bias is read from ACC[src+1]).
  std::vector<int64_t> vector_base(vectors.size(), -1), vector_step(vectors.size(), 1);
  int64_t n_params = 0;
  for (const AluPass& p : seq.after)
    if (p.bias_param >= 0) {
      vector_base[static_cast<size_t>(p.param)] = n_params;
      vector_base[static_cast<size_t>(p.bias_param)] = n_params + 1;
      vector_step[static_cast<size_t>(p.param)] = vector_step[static_cast<size_t>(p.bias_param)] = 2;
      n_params += 2 * OCB;
    }
  for (size_t k = 0; k < vectors.size(); ++k)
    if (vector_base[k] < 0) {
      vector_base[k] = n_params;
      n_params += OCB;
    }
  out.constants.resize(params_at + static_cast<uint64_t>(n_params) * acc_entry, 0);
  for (size_t k = 0; k < vectors.size(); ++k)
    for (int64_t o = 0; o < OCB * cfg.block_out; ++o) {
      const int32_t v = o < L.o ? (*vectors[k])[static_cast<size_t>(o)] : 0;
      const int64_t entry = vector_base[k] + vector_step[k] * (o / cfg.block_out);
      for (uint32_t bt = 0; bt < cfg.batch; ++bt)
        putI32(out.constants,
               params_at + static_cast<uint64_t>(entry) * acc_entry +
                   (bt * cfg.block_out + static_cast<uint64_t>(o % cfg.block_out)) * 4,
               v);
    }
  const uint64_t uops_at = alignUp(out.constants.size(), kRegionAlign);

  // ---- activation arena: X (block_in) | R and Y (block_out, or block_in interleaved)
  out.y_block = G * cfg.block_out;
  const rt::accel::PackedGeometry xg = rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, cfg.block_in);
  const rt::accel::PackedGeometry yg = rt::accel::packedGeometry({L.n, L.o, L.oh, L.ow}, cfg.batch, out.y_block);
  for (int64_t offset : {placement.x_offset, placement.r_offset, placement.y_offset})
    if (offset < 0 || uint64_t(offset) % kArenaAlign)
      throw std::invalid_argument("layer '" + L.name + "': arena offset " + std::to_string(offset) +
                                  " is not a multiple of " + std::to_string(kArenaAlign));
  out.x_offset = placement.x_offset;
  out.r_offset = placement.r_offset;
  out.y_offset = placement.y_offset;
  out.io_bytes = std::max(out.x_offset + xg.bytes(), out.y_offset + yg.bytes());
  if (L.residual) out.io_bytes = std::max(out.io_bytes, out.r_offset + yg.bytes());
  const uint32_t inp_entry = cfg.entryBytes(Memory::Input), out_entry = cfg.entryBytes(Memory::Output);
  const uint64_t x_base = static_cast<uint64_t>(out.x_offset) / inp_entry;
  const uint64_t r_base = static_cast<uint64_t>(out.r_offset) / out_entry;
  const uint64_t y_base = static_cast<uint64_t>(out.y_offset) / out_entry;
  const uint64_t w_base = constants_offset / wgt_entry;

  // ---- on-chip memory plan: each buffer split into T halves; the
  // per-channel parameter vectors sit at the top of ACC for the whole layer.
  const int64_t inp_half = cfg.depth(Memory::Input) / T, wgt_half = cfg.depth(Memory::Weight) / T;
  const int64_t param_base = int64_t(cfg.depth(Memory::Acc)) - n_params;
  const int64_t acc_half = param_base / T;

  Emitter em;
  em.program.name = L.name;
  UopTable uops;
  // Micro-ops and parameters first; the UOP load's size is patched at the end.
  const size_t uop_load =
      em.emit(hw::makeLoad(Memory::Uop, 0, (constants_offset + uops_at) / 4, 1, 1, 1), Region::Constants);
  if (n_params)
    em.emit(hw::makeLoad(Memory::Acc, static_cast<uint32_t>(param_base), (constants_offset + params_at) / acc_entry, 1,
                         static_cast<uint32_t>(n_params), static_cast<uint32_t>(n_params)),
            Region::Constants);

  const bool via_input = plan.residual_via_input;
  if (via_input && (dw || gemm_requant || !seq.residual_in_acc || !seq.bias_clear ||
                    G * int64_t(cfg.block_out) != int64_t(cfg.block_in) || out.r_offset % inp_entry))
    throw std::logic_error("layer '" + L.name +
                           "': a residual through INP needs R in zeroed accumulators, in entries of INP's width");
  if (seq.bias_clear && (!seq.residual_in_acc || via_input) && !gemm_requant) {
    // The tiles' accumulators start at zero: each tile's bias_clear pass
    // zeroes what the tile accumulated, so only the layer's first use of
    // each half needs this pass (a tile that starts from R loads it over
    // them, unless R comes through INP and is added to them).
    std::vector<hw::Uop> halves;
    for (int64_t va = 0; va < T; ++va) halves.push_back({static_cast<uint32_t>(va * acc_half), 0, 0});
    hw::LoopNest l;
    const auto range = uops.add(halves);
    l.uop_begin = range.first;
    l.uop_end = range.second;
    l.iter_out = static_cast<uint32_t>(plan.oc_blocks);
    l.iter_in = static_cast<uint32_t>(tile_pixels);
    l.dst_out = static_cast<uint32_t>(tile_pixels);
    l.dst_in = 1;
    em.emit(hw::makeAluImm(hw::AluOp::Mov, l, 0));
  }

  // SETREQ of oc block q: the requantising pass's op, immediate, operand and
  // bias (the pair at the block's parameter entries).
  auto setReq = [&](int64_t q) {
    const AluPass& req = seq.after.front();
    const size_t k = static_cast<size_t>(req.param);
    Instruction set;
    set.opcode = hw::Opcode::SetReq;
    set.alu_op = req.op;
    set.imm = req.imm;
    set.sram_base = static_cast<uint32_t>(param_base + vector_base[k] + vector_step[k] * q);
    return set;
  };

  const int64_t row_tiles = ceilDiv(L.oh, plan.rows), col_tiles = ceilDiv(L.ow, plan.cols),
                oc_tiles = ceilDiv(OCB, plan.oc_blocks);
  // The input blocks an oc tile reads: those of its groups, or with DWGEMM
  // the input block of each of its oc blocks (block q reads block q / LB,
  // LB = block_in / block_out; the tile starts at a multiple of LB).
  const int64_t LB = cfg.depthwiseLaneBlocks();
  auto inputRangeOf = [&](int64_t ocb0) {
    return dw ? BlockRange{ocb0 / LB, std::min(ceilDiv(std::min(plan.oc_blocks, OCB - ocb0), LB), CB - ocb0 / LB)}
              : inputBlocksOf(L, ocb0, cfg.block_in, cfg.block_out);
  };
  // Reduction chunks of an oc tile (its input range, in ic_blocks; with
  // DWGEMM one chunk of all of them).
  auto chunksOf = [&](int64_t ocb0) { return dw ? int64_t(1) : ceilDiv(inputRangeOf(ocb0).count, plan.ic_blocks); };
  int64_t chunks_per_position = 0;
  for (int64_t ot = 0; ot < oc_tiles; ++ot) chunks_per_position += chunksOf(ot * plan.oc_blocks);
  const int64_t I = b.batch_groups * row_tiles * col_tiles * oc_tiles;
  const int64_t J = b.batch_groups * row_tiles * col_tiles * chunks_per_position;
  int64_t i = 0, j = 0;
  std::vector<std::array<int64_t, 3>> wgt_in_half(static_cast<size_t>(T), {-1, -1, -1});
  std::vector<bool> identity_in_half(static_cast<size_t>(T), false);

  for (int64_t nb = 0; nb < b.batch_groups; ++nb)
    for (int64_t rt_ = 0; rt_ < row_tiles; ++rt_)
      for (int64_t ct = 0; ct < col_tiles; ++ct)
        for (int64_t ot = 0; ot < oc_tiles; ++ot, ++i) {
          const int64_t oh0 = rt_ * plan.rows, rows = std::min(plan.rows, L.oh - oh0);
          const int64_t ow0 = ct * plan.cols, cols = std::min(plan.cols, L.ow - ow0);
          const int64_t ocb0 = ot * plan.oc_blocks, ocbs = std::min(plan.oc_blocks, OCB - ocb0);
          const int64_t va = i % T;
          const int64_t acc_base = va * acc_half, res_base = acc_base + tile_entries;
          bool acc_pop_pending = i >= T;  // the store of tile i-T must have read this half

          // 2-D transfers between a tile region [ocbs/G][rows][plan.cols][G]
          // and a tensor [OCB/G][OH][OW][G] (entries of block_out channels):
          // as few instructions as the pitches allow.
          auto tileTransfers = [&](auto make, uint64_t dram_base, int64_t sram_base) {
            std::vector<size_t> idx;
            const int64_t groups = ocbs / G, group_stride = G * tile_pixels;
            const uint64_t first =
                dram_base + static_cast<uint64_t>((((nb * OCB + ocb0) / G * L.oh + oh0) * L.ow + ow0) * G);
            const uint64_t plane = static_cast<uint64_t>(L.oh * L.ow * G);
            if (cols == L.ow && (rows == plan.rows || groups == 1)) {
              // Whole rows: one instruction, a row per group of oc blocks.
              idx.push_back(make(static_cast<uint32_t>(sram_base), first, static_cast<uint32_t>(groups),
                                 static_cast<uint32_t>(rows * cols * G), static_cast<uint32_t>(plane)));
            } else if (cols == plan.cols) {
              for (int64_t g = 0; g < groups; ++g)
                idx.push_back(make(static_cast<uint32_t>(sram_base + g * group_stride), first + g * plane,
                                   static_cast<uint32_t>(rows), static_cast<uint32_t>(cols * G),
                                   static_cast<uint32_t>(L.ow * G)));
            } else {
              // An edge column tile: its rows are shorter than the pitch.
              for (int64_t g = 0; g < groups; ++g)
                for (int64_t r = 0; r < rows; ++r)
                  idx.push_back(make(static_cast<uint32_t>(sram_base + g * group_stride + r * plan.cols * G),
                                     first + g * plane + static_cast<uint64_t>(r * L.ow * G), 1,
                                     static_cast<uint32_t>(cols * G), static_cast<uint32_t>(cols * G)));
            }
            return idx;
          };

          // ALU pass over the tile: the first `rows` rows at full pitch of
          // every oc block (entries past an edge tile's columns are computed
          // but never stored). The outer loop runs over the oc blocks and the
          // inner one along the pixels, so a parameter operand stays in its
          // register; an interleaved tile takes an instruction per group.
          // Returns the first and last instruction.
          auto aluPass = [&](const AluPass& p) {
            const int64_t insns = G > 1 ? ocbs / G : 1, per_insn = G > 1 ? G : ocbs;
            std::pair<size_t, size_t> emitted{0, 0};
            for (int64_t g = 0; g < insns; ++g) {
              const int64_t group_at = g * G * tile_pixels;
              hw::Uop u;
              u.dst = static_cast<uint32_t>((p.dst == AluPass::Dst::Acc ? acc_base : res_base) + group_at);
              hw::LoopNest l;
              l.iter_out = static_cast<uint32_t>(per_insn);
              l.iter_in = static_cast<uint32_t>(rows * plan.cols);
              l.dst_out = static_cast<uint32_t>(accAt(1, 0));
              l.dst_in = static_cast<uint32_t>(G);
              if (p.src == AluPass::Src::Param) {
                const size_t k = static_cast<size_t>(p.param);
                u.src = static_cast<uint32_t>(param_base + vector_base[k] + vector_step[k] * (ocb0 + g * G));
                l.src_out = static_cast<uint32_t>(vector_step[k]);
              } else if (p.src == AluPass::Src::Residual) {
                u.src = static_cast<uint32_t>(res_base + group_at);
                l.src_out = l.dst_out;
                l.src_in = l.dst_in;
              }
              const auto range = uops.add({u});
              l.uop_begin = range.first;
              l.uop_end = range.second;
              hw::Instruction insn = p.src == AluPass::Src::Imm ? hw::makeAluImm(p.op, l, p.imm) : hw::makeAlu(p.op, l);
              // REQ's clip bounds, FREQ's zero point, beside the tensor operand
              if (p.op == hw::AluOp::Req || p.op == hw::AluOp::FReq) insn.imm = p.imm;
              insn.bias_clear = p.bias_param >= 0;
              emitted.second = em.emit(insn);
              if (g == 0) emitted.first = emitted.second;
            }
            return emitted;
          };

          if (L.residual && !via_input) {
            // Into the tile's own accumulators when the sequence starts from R.
            auto idx = tileTransfers(
                [&](uint32_t s, uint64_t d, uint32_t y, uint32_t x, uint32_t st) {
                  return em.emit(hw::makeLoad(Memory::Acc8, s, d, y, x, st), Region::Io);
                },
                r_base, seq.residual_in_acc ? acc_base : res_base);
            if (acc_pop_pending) em.at(idx.front()).pop_next = true;
            acc_pop_pending = false;
          }
          // The first compute instruction that writes the half (every ACC
          // write also writes OUT) waits for the store of tile i-T.
          auto claimPop = [&](size_t at) {
            if (acc_pop_pending) em.at(at).pop_next = true;
            acc_pop_pending = false;
          };
          // The passes before the GEMMs: R's scaling, then (below) the
          // border corrections. With R through INP they follow the GEMM that
          // adds it, after the first load tile's loads.
          auto initPasses = [&]() {
            for (const AluPass& p : seq.init) claimPop(aluPass(p).first);
            if (acc_pop_pending && !seq.bias_clear)
              throw std::logic_error("layer '" + L.name + "': a tile starts with neither a load nor an ALU pass");
          };
          if (!via_input) initPasses();
          // What the zero padding of this tile's border outputs lacks: an
          // ADD of each correction over the outputs of the tile it covers,
          // before the GEMMs. Where the GEMMs requantise, after them
          // instead, each followed by the requantising op over the same
          // outputs (their ACC holds the bias and the sum), which rewrites
          // their OUT. Returns the last instruction (npos: none).
          auto borderCorrectionPasses = [&](bool requantise) {
            size_t last = std::string::npos;
            const AluPass* req = requantise ? &seq.after.front() : nullptr;
            auto emitPass = [&](hw::LoopNest l, const std::vector<hw::Uop>& kernel, bool is_req) {
              const auto range = uops.add(kernel);
              l.uop_begin = range.first;
              l.uop_end = range.second;
              hw::Instruction insn = hw::makeAlu(is_req ? req->op : hw::AluOp::Add, l);
              if (is_req) insn.imm = req->imm;  // REQ's clip bounds, FREQ's zero point
              last = em.emit(insn);
              if (!requantise) claimPop(last);
            };
            for (size_t k = 0; k < corrections.size(); ++k) {
              const BorderCorrection& bc = corrections[k];
              const int64_t r0 = std::max(bc.rows.first, oh0), r1 = std::min(bc.rows.first + bc.rows.count, oh0 + rows);
              const int64_t c0 = std::max(bc.cols.first, ow0), c1 = std::min(bc.cols.first + bc.cols.count, ow0 + cols);
              if (r0 >= r1 || c0 >= c1) continue;
              const int64_t pixel0 = (r0 - oh0) * plan.cols + (c0 - ow0);
              // The correction's vector of block q, and the requantising op's operand.
              auto operandOf = [&](bool is_req, int64_t q) {
                const size_t v = is_req ? static_cast<size_t>(req->param) : seq.params.size() + k;
                return static_cast<uint32_t>(param_base + vector_base[v] + vector_step[v] * (ocb0 + q));
              };
              for (bool is_req : {false, true}) {
                if (is_req && !requantise) break;
                const size_t v = is_req ? static_cast<size_t>(req->param) : seq.params.size() + k;
                if (r1 - r0 == 1 || c1 - c0 == 1) {
                  // A row or a column of outputs: the loops run over the oc blocks
                  // (of a group, when interleaved) and along it, one micro-op.
                  const int64_t insns = G > 1 ? ocbs / G : 1, per_insn = G > 1 ? G : ocbs;
                  for (int64_t g = 0; g < insns; ++g) {
                    hw::LoopNest l;
                    l.iter_out = static_cast<uint32_t>(per_insn);
                    l.dst_out = static_cast<uint32_t>(accAt(1, 0));
                    l.src_out = static_cast<uint32_t>(vector_step[v]);
                    l.iter_in = static_cast<uint32_t>(std::max(r1 - r0, c1 - c0));
                    l.dst_in = static_cast<uint32_t>((r1 - r0 == 1 ? 1 : plan.cols) * G);
                    emitPass(l, {{static_cast<uint32_t>(acc_base + accAt(g * G, pixel0)), operandOf(is_req, g * G), 0}},
                             is_req);
                  }
                } else {
                  // A rectangle: the loops run over it, a micro-op per oc block.
                  std::vector<hw::Uop> kernel;
                  for (int64_t q = 0; q < ocbs; ++q)
                    kernel.push_back({static_cast<uint32_t>(acc_base + accAt(q, pixel0)), operandOf(is_req, q), 0});
                  hw::LoopNest l;
                  l.iter_out = static_cast<uint32_t>(r1 - r0);
                  l.iter_in = static_cast<uint32_t>(c1 - c0);
                  l.dst_out = static_cast<uint32_t>(plan.cols * G);
                  l.dst_in = static_cast<uint32_t>(G);
                  emitPass(l, kernel, is_req);
                }
              }
            }
            return last;
          };
          if (!gemm_requant && !via_input) borderCorrectionPasses(false);

          // Input window of the tile and the padding the DMA adds around it.
          const int64_t row0 = oh0 * L.sh - L.pad_top, row_end = row0 + (rows - 1) * L.sh + L.kh;
          const int64_t top = std::max<int64_t>(0, -row0), bottom = std::max<int64_t>(0, row_end - L.h);
          const int64_t valid_rows = row_end - bottom - (row0 + top);
          const int64_t col0 = ow0 * L.sw - L.pad_left, col_end = col0 + (cols - 1) * L.sw + L.spanW();
          const int64_t left = std::max<int64_t>(0, -col0), right = std::max<int64_t>(0, col_end - L.w);
          const int64_t valid_cols = col_end - right - (col0 + left);
          const int64_t pitch = col_end - col0;  // SRAM entries per input row of this tile
          if (valid_rows <= 0 || valid_cols <= 0)
            throw DoesNotFit("layer '" + L.name + "': a tile's input lies entirely in the padding");

          const BlockRange in_range = inputRangeOf(ocb0);
          const int64_t ic_tiles = chunksOf(ocb0);
          const int64_t chunk_blocks = dw ? in_range.count : plan.ic_blocks;
          for (int64_t it = 0; it < ic_tiles; ++it, ++j) {
            // cb0 counts from the first input block the oc tile reads.
            const int64_t cb0 = it * chunk_blocks, cbs = std::min(chunk_blocks, in_range.count - cb0);
            const int64_t v = j % T;
            const int64_t inp_base = v * inp_half, wgt_base = v * wgt_half;
            std::vector<size_t> loads;
            for (int64_t q = 0; q < cbs; ++q) {
              const uint64_t dram =
                  x_base +
                  static_cast<uint64_t>(((nb * CB + in_range.first + cb0 + q) * L.h + row0 + top) * L.w + col0 + left);
              const hw::Padding pad{static_cast<uint32_t>(top), static_cast<uint32_t>(bottom),
                                    static_cast<uint32_t>(left), static_cast<uint32_t>(right)};
              loads.push_back(
                  em.emit(hw::makeLoad(Memory::Input, static_cast<uint32_t>(inp_base + q * ih_full * iw_full), dram,
                                       static_cast<uint32_t>(valid_rows), static_cast<uint32_t>(valid_cols),
                                       static_cast<uint32_t>(L.w), pad),
                          Region::Io));
            }
            // Weights are read-only: when this half already holds the same
            // weight tile (the tile T load tiles ago had the same oc and ic
            // range), it is not loaded again.
            const std::array<int64_t, 3> key{ocb0, in_range.first + cb0, cbs};
            if (wgt_in_half[static_cast<size_t>(v)] != key) {
              // GEMM: [oc block][ic block][kh][kw]; DWGEMM: [oc block][kh].
              const Instruction load =
                  dw ? hw::makeLoad(Memory::Weight, static_cast<uint32_t>(wgt_base),
                                    w_base + static_cast<uint64_t>(ocb0 * L.kh), 1, static_cast<uint32_t>(ocbs * L.kh),
                                    static_cast<uint32_t>(ocbs * L.kh))
                     : hw::makeLoad(Memory::Weight, static_cast<uint32_t>(wgt_base),
                                    w_base + static_cast<uint64_t>((ocb0 * RB + cb0) * kk), static_cast<uint32_t>(ocbs),
                                    static_cast<uint32_t>(cbs * kk), static_cast<uint32_t>(RB * kk));
              loads.push_back(em.emit(load, Region::Constants));
              wgt_in_half[static_cast<size_t>(v)] = key;
            }
            // R through INP: its tile after the input tile's place, the
            // identity block after the weight tile's (loaded once per half).
            const int64_t r_inp = inp_base + plan.ic_blocks * ih_full * iw_full;
            const int64_t identity_wgt = wgt_base + plan.oc_blocks * plan.ic_blocks * kk;
            const bool adds_residual = via_input && it == 0;
            if (adds_residual) {
              // tileTransfers counts in output blocks; an INP entry holds
              // the G blocks of an interleaved group (a pixel per entry).
              const std::vector<size_t> r = tileTransfers(
                  [&](uint32_t sram, uint64_t d, uint32_t y, uint32_t x, uint32_t st) {
                    return em.emit(
                        hw::makeLoad(Memory::Input, static_cast<uint32_t>(r_inp + sram / G), d / G, y, x / G, st / G),
                        Region::Io);
                  },
                  r_base, 0);
              loads.insert(loads.end(), r.begin(), r.end());
              if (!identity_in_half[static_cast<size_t>(v)]) {
                loads.push_back(
                    em.emit(hw::makeLoad(Memory::Weight, static_cast<uint32_t>(identity_wgt), w_base + identity_entry,
                                         1, static_cast<uint32_t>(G), static_cast<uint32_t>(G)),
                            Region::Constants));
                identity_in_half[static_cast<size_t>(v)] = true;
              }
            }
            if (j >= T) em.at(loads.front()).pop_next = true;
            em.at(loads.back()).push_next = true;
            if (adds_residual) {
              // ACC (zero since the tile T before cleared it) += R x I over
              // the tile's rows at full pitch, as the ALU passes run (entries
              // past an edge tile's columns are never stored; its last pass
              // clears them); then the passes before the GEMMs.
              // (Interleaved: a micro-op per block h of each group, its
              // identity block taking channels h*block_out... of the entry
              // to the block's accumulators, pixel-major in the group.)
              hw::LoopNest l;
              std::vector<hw::Uop> identity_uops;
              for (int64_t h = 0; h < G; ++h)
                identity_uops.push_back({static_cast<uint32_t>(acc_base + h), static_cast<uint32_t>(r_inp),
                                         static_cast<uint32_t>(identity_wgt + h)});
              const auto range = uops.add(identity_uops);
              l.uop_begin = range.first;
              l.uop_end = range.second;
              l.iter_out = static_cast<uint32_t>(ocbs / G);
              l.iter_in = static_cast<uint32_t>(rows * plan.cols);
              l.dst_out = static_cast<uint32_t>(G * tile_pixels);
              l.src_out = static_cast<uint32_t>(tile_pixels);
              l.dst_in = static_cast<uint32_t>(G);
              l.src_in = 1;
              Instruction identity = hw::makeGemm(l);
              identity.pop_prev = true;
              claimPop(em.emit(identity));
              initPasses();
              if (!gemm_requant) borderCorrectionPasses(false);
            }

            if (dw) {
              DepthwiseTile t;
              t.acc_base = acc_base;
              t.inp_base = inp_base;
              t.wgt_base = wgt_base;
              t.oc_blocks = ocbs;
              t.lane_blocks = LB;
              t.rows = rows;
              t.pitch = pitch;
              t.group = G;  // accAt's layout
              t.acc_group = G * tile_pixels;
              t.acc_pixel = G;
              t.acc_row = plan.cols * G;
              t.inp_plane = ih_full * iw_full;
              // A DWGEMM per lane block: the first waits for the loads, the
              // last frees their buffers. Requantising, a SETREQ and a
              // DWGEMM per oc block (the state holds one block's operand).
              std::vector<size_t> dwgemms;
              if (!gemm_requant) {
                for (int64_t lane = 0; lane < std::min(LB, ocbs); ++lane) {
                  const auto range = uops.add(depthwiseKernel(L, t, lane));
                  dwgemms.push_back(em.emit(depthwiseGemm(L, t, range.first, range.second, lane)));
                }
              } else {
                for (int64_t oq = 0; oq < ocbs; ++oq) {
                  em.emit(setReq(ocb0 + oq));
                  const auto range = uops.add(depthwiseKernel(L, t, oq % LB, oq));
                  Instruction dwgemm = depthwiseGemm(L, t, range.first, range.second, oq % LB);
                  dwgemm.requant = true;
                  dwgemms.push_back(em.emit(dwgemm));
                }
              }
              em.at(dwgemms.front()).pop_prev = true;
              em.at(dwgemms.back()).push_prev = j <= J - 1 - T;
              claimPop(dwgemms.front());
              continue;
            }
            // The micro-ops of oc blocks [q0, q1): the reduction of each
            // block in turn, over its input blocks and taps.
            auto gemmOver = [&](int64_t q0, int64_t q1) {
              std::vector<hw::Uop> kernel;
              kernel.reserve(static_cast<size_t>((q1 - q0) * cbs * kk));
              for (int64_t oq = q0; oq < q1; ++oq)
                for (int64_t q = 0; q < cbs; ++q)
                  for (int64_t ky = 0; ky < L.kh; ++ky)
                    for (int64_t kx = 0; kx < L.kw; ++kx)
                      kernel.push_back(
                          {static_cast<uint32_t>(acc_base + accAt(oq, 0)),
                           static_cast<uint32_t>(inp_base + q * ih_full * iw_full + ky * pitch + kx * L.dilation_w),
                           static_cast<uint32_t>(wgt_base + ((oq * cbs + q) * L.kh + ky) * L.kw + kx)});
              const auto range = uops.add(kernel);
              hw::LoopNest l;
              l.uop_begin = range.first;
              l.uop_end = range.second;
              l.iter_out = static_cast<uint32_t>(rows);
              l.iter_in = static_cast<uint32_t>(cols);
              l.dst_out = static_cast<uint32_t>(plan.cols * G);
              l.dst_in = static_cast<uint32_t>(G);
              l.src_out = static_cast<uint32_t>(L.sh * pitch);
              l.src_in = static_cast<uint32_t>(L.sw);
              return hw::makeGemm(l);
            };
            if (!gemm_requant) {
              Instruction gemm = gemmOver(0, ocbs);
              gemm.pop_prev = !adds_residual;  // (else the identity GEMM popped)
              gemm.push_prev = j <= J - 1 - T;
              claimPop(em.emit(gemm));
              continue;
            }
            std::vector<size_t> gemms;
            for (int64_t oq = 0; oq < ocbs; ++oq) {
              em.emit(setReq(ocb0 + oq));
              Instruction gemm = gemmOver(oq, oq + 1);
              gemm.requant = true;
              gemms.push_back(em.emit(gemm));
            }
            em.at(gemms.front()).pop_prev = true;
            em.at(gemms.back()).push_prev = j <= J - 1 - T;
            claimPop(gemms.front());
          }

          if (!gemm_requant) {
            size_t last_alu = 0;
            for (const AluPass& p : seq.after) last_alu = aluPass(p).second;
            em.at(last_alu).push_next = true;
          } else {
            // The tile's last compute instruction: the last GEMM (DWGEMM),
            // or the last pass at its border.
            const size_t last_gemm = em.program.insns.size() - 1;
            const size_t border = borderCorrectionPasses(true);
            em.at(border == std::string::npos ? last_gemm : border).push_next = true;
          }

          auto stores = tileTransfers([&](uint32_t s, uint64_t d, uint32_t y, uint32_t x,
                                          uint32_t st) { return em.emit(hw::makeStore(s, d, y, x, st), Region::Io); },
                                      y_base, acc_base);
          em.at(stores.front()).pop_prev = true;
          if (i <= I - 1 - T) em.at(stores.back()).push_prev = true;
        }
  em.emit(hw::makeFinish());

  codegen::placeMicroOps(em, uops, uop_load, uops_at, cfg, L.name, out.constants, out.program);
  return out;
}

}  // namespace vdla::accel
