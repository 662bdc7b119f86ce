// One vdla.QConv node as the accelerator back end sees it: shapes after any
// host-side input transform (explicit padding, im2col), the int8 weights and
// the requantisation parameters that become ALU instructions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/accel/packed_layout.h"

namespace vdla::accel {

struct ConvLayer {
  std::string name;
  // Input as the device sees it (after `host`), NCHW.
  int64_t n = 1, c = 0, h = 0, w = 0;
  // Output channels and kernel.
  int64_t o = 0, kh = 1, kw = 1, sh = 1, sw = 1;
  // Input columns between the kernel's column taps: 1, or u for a layer over
  // column-unfolded input (toColumnUnfoldedLayer), whose ceil(KW/u) taps
  // each read u columns of the original kernel row from one input entry.
  // Such layers are dense and have no device padding.
  int64_t dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;  // zero padding done by the DMA
  // The value the padding stands for (the input's zero point). The DMA pads
  // with zeros; the program adds pad_value times the padded taps' weights to
  // the border outputs (border_correction.h).
  int32_t pad_value = 0;
  int64_t oh = 0, ow = 0;
  int64_t group = 1;  // grouped/depthwise: each oc block reads only its groups' input blocks
  bool residual = false;
  // Requantisation (see the vdla.QConv definition in docs/quantization.md).
  int32_t shift1 = 0, shift2 = 0, clip_lo = -128, clip_hi = 127;
  bool wide_product = false;   // the product and shift2 in 64 bits: always one MULSHR
  int32_t residual_shift = 0;  // wide form: residual_mult's fractional bits (a MULSHR of R)
  bool float_requant = false;  // mult holds binary32 scales: one FREQ (isa.h)
  int32_t y_zero_point = 0;    // float_requant: added after the rounding
  // post_add: the residual joins after the requantisation, as a quantised
  // addition (clip((y*add_y_mult + R*residual_mult + add_offset) >> add_shift)).
  bool post_add = false;
  int32_t add_y_mult = 0, add_offset = 0, add_shift = 0;
  std::vector<int32_t> bias1, mult, bias2, residual_mult;  // [o] each
  std::vector<int8_t> weights;                             // [o][c/group][kh][kw]
  rt::accel::InputTransform host;                          // applied by the runtime before upload
  // A 1x1 expansion fused in front of this depthwise layer (extension
  // inp_writeback, expanded_depthwise.h): the layer's input is then the
  // expansion's input (expansion->c channels); the expansion's output,
  // this layer's c channels, exists on chip only.
  std::shared_ptr<const ConvLayer> expansion;

  int64_t macs() const { return n * o * oh * ow * (c / group) * kh * kw + (expansion ? expansion->macs() : 0); }
  // Input columns one output's kernel row covers.
  int64_t spanW() const { return (kw - 1) * dilation_w + 1; }
};

// The input-channel blocks an output-channel block reads: [first, first+count).
// All of them for a dense layer; the blocks of its groups for a grouped one.
struct BlockRange {
  int64_t first = 0, count = 0;
};
BlockRange inputBlocksOf(const ConvLayer& layer, int64_t oc_block, int64_t block_in, int64_t block_out);
// The most input blocks any output block reads (the reduction length in blocks).
int64_t maxInputBlocks(const ConvLayer& layer, int64_t block_in, int64_t block_out);

// Output blocks interleaved per DRAM entry. On a config whose block_in is a
// multiple G >= 2 of its block_out (batch 1), a layer can write its output in
// the next layer's input packing (block_in channels per entry): every tile
// covers its oc blocks in aligned groups of G and keeps each group's
// accumulators pixel-major, [pixel][G], so one store writes whole block_in
// entries. Without it (G = 1) no output could stay in device memory for the
// next layer. Grouped layers take it when each group of G oc blocks reads the
// same input blocks (every depthwise layer on 1x32x16); 1 otherwise.
int64_t outputInterleave(const ConvLayer& layer, const hw::HwConfig& cfg);
// The config's interleave G (1 when it has none): the factor of block_out in
// block_in on a batch-1 config. Max pooling and additions keep their
// activations in block_in entries on such configs, as the layers around them do.
int64_t configInterleave(const hw::HwConfig& cfg);
// Output-channel blocks of the layer on the config, rounded up to the interleave.
int64_t outputBlocks(const ConvLayer& layer, const hw::HwConfig& cfg);

// Why a node cannot run on the accelerator ("" when it can be described).
std::string whyNotOffloadable(const ir::Node& node);

// Builds the layer of a vdla.QConv node (whyNotOffloadable must be "").
ConvLayer convLayerFromNode(const ir::Node& node);

// The same convolution as a 1x1 layer over im2col'd input (C*KH*KW channels),
// with the im2col and the padding moved to the host.
ConvLayer toIm2colLayer(const ConvLayer& layer);

// Whether a layer has a space-to-depth form: ungrouped, the same stride
// b >= 2 in both dimensions.
bool hasSpaceToDepthForm(const ConvLayer& layer);
// The same convolution as a stride-1 layer over space-to-depth input with
// block b = the stride (C*b*b channels, a ceil(KH/b) x ceil(KW/b) kernel whose
// taps past the original window are zero), with the padding and the
// rearrangement moved to the host; the host's input keeps its size.
ConvLayer toSpaceToDepthLayer(const ConvLayer& layer);

// The widest column unfold worth taking for a layer: u columns of its C
// channels in one input entry (u*C <= block_in), at most its kernel width;
// 1 when the layer has none (grouped, strided in x, already unfolded, or a
// 1-wide kernel). Its padding, zero point included, moves to the host with
// the unfold (toColumnUnfoldedLayer).
int64_t columnUnfoldOf(const ConvLayer& layer, const hw::HwConfig& cfg);
// The same convolution over column-unfolded input (InputTransform::
// unfold_columns): u*C channels, a kernel of ceil(KW/u) column taps u
// columns apart (dilation_w), taps past the kernel zero; the padding moves
// to the host. The layer must be dense with stride 1 in x.
ConvLayer toColumnUnfoldedLayer(const ConvLayer& layer, int64_t u);

}  // namespace vdla::accel
