// A depthwise convolution on DWGEMM (extension depthwise_taps, vdla/hw/isa.h).
//
// On GEMM a depthwise layer is block-diagonal: each output vector takes one
// micro-op per kernel tap, and only block_out of the core's
// block_in x block_out products count. DWGEMM instead streams one input row
// of a tile through a window of the last `depthwise_taps` input vectors and,
// every `stride` inputs, adds the window times one weight entry to one
// output vector: a kernel row costs one cycle per input pixel of the row
// (kw products per lane) instead of kw cycles per output pixel.
//
// The mapping used here (one DWGEMM per load tile and lane block, one
// micro-op per kernel row ky and output-channel block q of the tile):
//   uop     {dst: acc_base + acc(q), src: inp_base + (q/LB)*inp_plane + ky*pitch, wgt: wgt_base + q*kh + ky}
//   loops   iter_out = rows (dst_out = acc_row, src_out = sh*pitch),
//           iter_in = pitch (dst_in = acc_pixel, src_in = 1)
//   fields  taps = kw, stride = sw, wgt_out = 0, lane_block = q % LB
// LB is the config's lane blocks (block_in / block_out; 1 on square arrays):
// oc block q reads channels (q % LB)*block_out.. of input block q / LB, so
// the blocks of one lane block share an instruction.
// `pitch` = (cols - 1)*sw + kw is the tile's input row in INP, so each run
// of the inner loop completes exactly `cols` outputs: output j at input
// i = kw-1 + j*sw, when the window's entry t holds input column
// j*sw + kw-1-t, which weight row t multiplies by kernel column kw-1-t.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::accel {

// Why the layer has no DWGEMM form on the config ("" when it has one): it
// needs the extension, one input channel per group and one output channel
// per input channel (group == c == o), a kernel at most depthwise_taps wide,
// a horizontal stride that fits DWGEMM's stride field (at most 3) and, where
// block_in exceeds block_out with an output interleave, an interleave of
// block_in / block_out (each group then reads one input block).
std::string whyNoDepthwiseGemm(const ConvLayer& layer, const hw::HwConfig& cfg);

// Packs the weights for DWGEMM: one WGT entry per (output-channel block,
// kernel row ky), laid out [oc block][ky]; row t, column o % block_in of
// entry (o / block_out, ky) holds w[o][0][ky][kw-1-t] for t < kw (the
// column of channel o in its input entry). Every other row is zero (the
// window holds older inputs there), and so are the other columns.
std::vector<uint8_t> packDepthwiseWeights(const ConvLayer& layer, const hw::HwConfig& cfg);

// One load tile's DWGEMM: where its accumulators, input planes and weights
// lie on chip, and its extent.
struct DepthwiseTile {
  int64_t acc_base = 0, inp_base = 0, wgt_base = 0;
  int64_t oc_blocks = 1;    // blocks of the tile (from a multiple of lane_blocks); block q reads
                            // input plane q / lane_blocks and weights q*kh..
  int64_t lane_blocks = 1;  // the config's block_in / block_out
  int64_t rows = 1;         // output rows
  int64_t pitch = 1;        // INP entries per input row: (cols - 1)*sw + kw
  // ACC of block q, pixel p: (q / group)*acc_group + p*acc_pixel + q % group
  // (conv_codegen's layout: group = 1 without an output interleave).
  int64_t group = 1;
  int64_t acc_group = 0;  // ACC entries between groups of oc blocks
  int64_t acc_pixel = 1;  // ACC entries between adjacent outputs of a row
  int64_t acc_row = 0;    // ACC entries between output rows
  int64_t inp_plane = 0;  // INP entries between the tile's input planes
};

// The micro-ops of a tile's DWGEMM for one lane block (one per oc block q
// with q % lane_blocks == lane_block and kernel row); empty when the tile has
// no such block. With `only_block` >= 0, those of that oc block alone (a
// requantising DWGEMM covers one block, whose reduction its micro-ops are).
std::vector<hw::Uop> depthwiseKernel(const ConvLayer& layer, const DepthwiseTile& tile, int64_t lane_block,
                                     int64_t only_block = -1);

// The DWGEMM over micro-ops [uop_begin, uop_end) (a lane block's kernel).
hw::Instruction depthwiseGemm(const ConvLayer& layer, const DepthwiseTile& tile, uint32_t uop_begin, uint32_t uop_end,
                              int64_t lane_block);

}  // namespace vdla::accel
