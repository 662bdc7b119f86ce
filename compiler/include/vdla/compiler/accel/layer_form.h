// The form a convolution takes on the accelerator: as it is, or as a 1x1
// layer over host-im2col'd input, whichever the cost model says is faster,
// with its tiling. Shared by the lowering (which then generates the program)
// and the design-space explorer (which only needs the estimate).
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
};

// `allow_im2col`: consider the im2col form for layers with fewer input
// channels than the GEMM's block_in and a kernel larger than 1x1. Throws
// std::runtime_error naming the layer when neither form fits the buffers.
LayerForm chooseLayerForm(const ConvLayer& direct, const hw::HwConfig& cfg, bool latency_hiding, bool allow_im2col);

}  // namespace vdla::accel
