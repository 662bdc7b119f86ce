// The form a convolution takes on the accelerator: as it is, as a 1x1 layer
// over host-im2col'd input, or as a stride-1 layer over space-to-depth input
// (conv_layer.h), whichever the cost model says is fastest, with its tiling. Shared by the lowering (which then
// generates the program) and the design-space explorer (which only needs the estimate).
#pragma once

#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

struct LayerForm {
  ConvLayer layer;  // the direct layer, or its im2col form
  TilePlan plan;
  CostEstimate estimate;
  bool im2col = false;
  bool space_to_depth = false;  // the layer is the space-to-depth form
};

// For layers with fewer input channels than the GEMM's block_in and a
// kernel larger than 1x1 the space-to-depth form (strided layers) and, with
// `allow_im2col`, the im2col form are considered too. im2col makes the host
// write KH*KW times the input; space-to-depth only rearranges it. Throws
// std::runtime_error naming the layer when neither form fits the buffers.
LayerForm chooseLayerForm(const ConvLayer& direct, const hw::HwConfig& cfg, bool latency_hiding, bool allow_im2col);

}  // namespace vdla::accel
