// A 1x1 expansion and the depthwise layer it feeds as one program, the
// expanded tensor kept on chip (extension inp_writeback, docs/isa.md).
//
// MobileNet-like blocks widen a few channels into many with a 1x1 layer and
// run a depthwise layer over the result: apart, the wide tensor crosses the
// port twice (MobileNetV2's 96 x 112 x 112 once out and once in), and both
// layers wait on it. Fused, per band of R output rows and per channel block
// q (the expansion's output block is the depthwise layer's input block):
//
//   compute  SETREQ, requantising GEMM: the band's input rows of block q of
//            the expansion (all its input blocks in one reduction) -> OUT
//   store    STORE INP: those rows into INP, at the pitch of the depthwise
//            layer's padded rows (left and right padding entries hold the
//            zero point, loaded once)
//   compute  SETREQ, requantising DWGEMM per kernel-row set: the band's
//            output rows of block q -> OUT; rows whose window reaches above
//            or below the image skip those kernel rows, their zero-point
//            contribution folded into the bias of a SETREQ of their own
//   store    STORE OUT of the band's outputs of block q
//
// The units k = band * blocks + q run as a software pipeline: with latency
// hiding the expansion of k+1 runs while the store module copies k, every
// on-chip region (the band's input in INP, the expansion's rows in ACC/OUT,
// the copied rows in INP, the outputs in ACC/OUT) has two halves used by
// alternating units, and the tokens between compute and store alternate
// "expanded rows ready" and "outputs ready" in both directions' order.
// The expansion of a band's rows is repeated for the rows two bands share
// (kernel height - stride of them); the search over R weighs that against
// the buffers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

// Why `expansion` followed by `depthwise` has no fused form on the config
// ("" when it has one): the config needs STORE INP, requantising GEMMs,
// DWGEMM and batch 1; the expansion must be a 1x1 stride-1 ungrouped layer
// without padding whose requantisation the GEMM does, the depthwise layer
// one with a DWGEMM form whose requantisation the DWGEMM does, neither with
// a residual.
std::string whyNoExpandedDepthwise(const ConvLayer& expansion, const ConvLayer& depthwise, const hw::HwConfig& cfg);

// The fused layer's on-chip layout for a plan (plan.rows output rows per
// band, plan.threads halves): sizes in entries of each memory.
struct ExpandedGeometry {
  int64_t cin_blocks = 0;  // the expansion's input blocks
  int64_t blocks = 0;      // channel blocks of the expanded tensor (the depthwise layer's)
  int64_t bands = 0, threads = 1;
  int64_t left = 0, right = 0;         // padding entries before and after a copied row's image columns
  int64_t run = 0;                     // entries a DWGEMM reads per row: (ow - 1) * sw + kw
  int64_t pitch = 0;                   // entries per copied row in INP: the run, or the row if longer
  int64_t rows_window = 0;             // input rows a full band's window spans
  int64_t rows_in_max = 0;             // the most image rows a band's expansion computes
  int64_t a_half = 0, b_half = 0;      // INP: the band's input; the copied rows
  int64_t e_half = 0, d_half = 0;      // ACC/OUT: the expansion's rows; the outputs
  int64_t inp_used = 0, acc_used = 0;  // both halves of both
  // Kernel-row sets skipped by output rows at the image's top and bottom:
  // variant 0 skips none; row_variant[oy] indexes `skipped`.
  std::vector<std::vector<int64_t>> skipped;
  std::vector<int> row_variant;
  int64_t params = 0;  // ACC entries: (operand, bias) per block for the expansion and per variant
  // Blocks whose weights WGT holds at once: every block's, loaded once; or,
  // when they do not fit and one band covers the layer (each block's
  // weights then serve one unit), a ring of slots that the load module
  // refills as the units finish with them.
  int64_t weight_slots = 0;
  int64_t wgt_entries = 0;  // the slots' expansion weights, then their depthwise weights
  std::string why_not;      // empty when the plan fits
};
ExpandedGeometry expandedGeometry(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg);

// The cost model's estimate of the fused program (`layer` has its expansion).
CostEstimate estimateExpandedPlan(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg);

// The cheapest band height that fits; throws DoesNotFit when none does.
TilePlan chooseExpandedTiling(const ConvLayer& layer, const hw::HwConfig& cfg, bool latency_hiding,
                              CostEstimate* estimate = nullptr);

// The fused program (conv_codegen.h's contract: its constants go at
// `constants_offset`; X is the expansion's input, Y the depthwise output).
ConvProgram generateExpandedDepthwiseProgram(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                                             uint64_t constants_offset, const ArenaPlacement& placement);

}  // namespace vdla::accel
