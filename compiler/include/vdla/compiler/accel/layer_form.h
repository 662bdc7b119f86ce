// The form a convolution takes on the accelerator: as it is, as a 1x1 layer
// over host-im2col'd input, or as a stride-1 layer over space-to-depth input
// (conv_layer.h), whichever is fastest end to end, with its tiling. Shared by
// the lowering (which then generates the program) and the design-space
// explorer (which only needs the estimate).
//
// End to end: the accelerator's cycles (the cost model) plus, on a board
// whose host processor is on record (hw/board_host.h), the host's work to
// pack the form's input (and transform it, for im2col and space-to-depth),
// counted in accelerator cycles. On a Pynq the Cortex-A9 takes longer to
// im2col ResNet-18's input than the accelerator saves with it.
#pragma once

#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

struct LayerForm {
  ConvLayer layer;  // the direct layer, or its im2col form
  TilePlan plan;
  CostEstimate estimate;   // the accelerator's
  double host_cycles = 0;  // the board host's work on the input, in accelerator cycles (0 without a host on record)
  bool im2col = false;
  bool space_to_depth = false;  // the layer is the space-to-depth form
  int64_t unfold_columns = 1;   // and/or its columns unfolded (toColumnUnfoldedLayer)
};

// For layers with fewer input channels than the GEMM's block_in and a
// kernel larger than 1x1 the space-to-depth form (strided layers), the
// column-unfolded form of the layer or of its space-to-depth form (where
// several columns' channels fit one input entry) and, with `allow_im2col`,
// the im2col form are considered too. im2col makes the host write KH*KW
// times the input; space-to-depth only rearranges it; a column unfold by u
// writes u times the channels into entries of the same size. Throws
// DoesNotFit naming the layer when no form fits the buffers.
// `allow_unfold` false leaves out the column-unfolded forms.
// `input_on_device`: the layer's input is written by an offloaded layer, so
// in the direct form it can stay in device memory; a host-transformed form
// would bring it to the host and back, which its estimate does not count,
// so then only the direct form is considered.
LayerForm chooseLayerForm(const ConvLayer& direct, const hw::HwConfig& cfg, bool latency_hiding, bool allow_im2col,
                          bool allow_unfold = true, bool input_on_device = false);

}  // namespace vdla::accel
