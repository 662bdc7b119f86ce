#include "vdla/compiler/accel/depthwise_gemm.h"

#include "vdla/hw/instruction_builders.h"

namespace vdla::accel {

namespace {

// DWGEMM's stride field is 2 bits (vdla/hw/isa_layout.cpp).
constexpr int64_t kMaxDepthwiseStride = 3;

}  // namespace

std::string whyNoDepthwiseGemm(const ConvLayer& L, const hw::HwConfig& cfg) {
  if (cfg.depthwise_taps == 0) return "config '" + cfg.name + "' has no DWGEMM (extension depthwise_taps)";
  // Input channel c feeds lane c of the accumulator entry: only a layer whose
  // output channel c reads input channel c alone maps onto it.
  if (!(L.group == L.c && L.c == L.o)) return "not a depthwise layer with channel multiplier 1";
  const int64_t G = outputInterleave(L, cfg);
  if (G > 1 && G != int64_t(cfg.depthwiseLaneBlocks()))
    return "an output interleave of " + std::to_string(G) + " blocks against " +
           std::to_string(cfg.depthwiseLaneBlocks()) + " lane blocks";
  if (L.kw > int64_t(cfg.depthwise_taps))
    return "kernel " + std::to_string(L.kw) + " wide, DWGEMM has " + std::to_string(cfg.depthwise_taps) + " taps";
  if (L.sw > kMaxDepthwiseStride) return "horizontal stride " + std::to_string(L.sw) + " exceeds DWGEMM's 3";
  return "";
}

std::vector<uint8_t> packDepthwiseWeights(const ConvLayer& L, const hw::HwConfig& cfg) {
  // Every oc block a tile may load, the interleave's padding blocks
  // included (all zero).
  const int64_t BI = cfg.block_in, BO = cfg.block_out, OCB = outputBlocks(L, cfg);
  const int64_t entry = BO * BI;
  std::vector<uint8_t> out(static_cast<size_t>(OCB * L.kh * entry), 0);
  for (int64_t o = 0; o < L.o; ++o)
    for (int64_t ky = 0; ky < L.kh; ++ky)
      for (int64_t t = 0; t < L.kw; ++t) {
        // weights [o][1][kh][kw]; window entry t is kernel column kw-1-t
        const int8_t w = L.weights[static_cast<size_t>((o * L.kh + ky) * L.kw + (L.kw - 1 - t))];
        out[static_cast<size_t>(((o / BO) * L.kh + ky) * entry + t * BI + o % BI)] = static_cast<uint8_t>(w);
      }
  return out;
}

std::vector<hw::Uop> depthwiseKernel(const ConvLayer& L, const DepthwiseTile& t, int64_t lane_block,
                                     int64_t only_block) {
  std::vector<hw::Uop> kernel;
  for (int64_t q = lane_block; q < t.oc_blocks; q += t.lane_blocks)
    for (int64_t ky = 0; ky < L.kh && (only_block < 0 || q == only_block); ++ky)
      kernel.push_back({static_cast<uint32_t>(t.acc_base + (q / t.group) * t.acc_group + q % t.group),
                        static_cast<uint32_t>(t.inp_base + (q / t.lane_blocks) * t.inp_plane + ky * t.pitch),
                        static_cast<uint32_t>(t.wgt_base + q * L.kh + ky)});
  return kernel;
}

hw::Instruction depthwiseGemm(const ConvLayer& L, const DepthwiseTile& t, uint32_t uop_begin, uint32_t uop_end,
                              int64_t lane_block) {
  hw::LoopNest l;
  l.uop_begin = uop_begin;
  l.uop_end = uop_end;
  // An output row per outer iteration: its input row `sh` rows further on.
  l.iter_out = static_cast<uint32_t>(t.rows);
  l.dst_out = static_cast<uint32_t>(t.acc_row);
  l.src_out = static_cast<uint32_t>(L.sh * t.pitch);
  // An input pixel per inner iteration; DWGEMM advances the output itself
  // (dst_in per completed output), and the row's weights stay.
  l.iter_in = static_cast<uint32_t>(t.pitch);
  l.dst_in = static_cast<uint32_t>(t.acc_pixel);
  l.src_in = 1;
  l.wgt_out = 0;
  hw::Instruction insn = hw::makeDwGemm(l, static_cast<uint32_t>(L.kw), static_cast<uint32_t>(L.sw));
  insn.lane_block = static_cast<uint32_t>(lane_block);
  return insn;
}

}  // namespace vdla::accel
