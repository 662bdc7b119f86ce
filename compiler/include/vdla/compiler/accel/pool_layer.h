// Max pooling on the accelerator, with the instructions it already has: each
// tile's input rows are loaded into the accumulators (LOAD ACC8, the DMA
// adding the padding as zeros), the window's maximum is taken by two ALU
// instructions (MOV of the first tap, then MAX over the other taps, one
// micro-op each), which also write OUT, and OUT is stored. When each
// window's second row belongs to that window alone (row stride 2 or more),
// a MAX first folds the window's other rows into that row in place, and the
// two instructions then run along it only (pool_codegen.cpp). No GEMM, no
// weights. The layer reads its input in the layout a convolution's output
// has in the activation arena (block_out channel blocks, or block_in ones on a
// config with an output interleave: conv_layer.h), so a stem convolution's
// output never leaves the device on its way through.
//
// Zero padding equals max pooling's own (the smallest value, never chosen
// while a window holds a real element) only when the input cannot be
// negative: the layer is offloaded with padding only when its producer is a
// vdla.QConv whose output range starts at zero or above (a fused ReLU).
#pragma once

#include <cstdint>
#include <string>

#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

struct PoolLayer {
  std::string name;
  int64_t n = 1, c = 0, h = 0, w = 0;  // input NCHW
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t oh = 0, ow = 0;
};

// Why a node is not a max pooling the accelerator can run ("" when it is).
std::string whyNotOffloadablePool(const ir::Node& node);
// The layer of a MaxPool node (whyNotOffloadablePool must be "").
PoolLayer poolLayerFromNode(const ir::Node& node);

// Where INP and OUT entries are alike and GEMMs requantise, a tile's input
// may instead cross the port through the load module into INP, overlapped
// with the compute module's work on the tile before, and one requantising
// GEMM over an identity weight block moves it into the accumulators, a cycle
// a vector (TilePlan::residual_via_input, pool_codegen.cpp).
bool poolInputCanUseInput(const hw::HwConfig& cfg);

// Plans: TilePlan's rows (output rows per tile, every column, one channel
// block), threads (2: double-buffered halves of ACC and OUT, and of INP in
// the INP form) and residual_via_input (the INP form).
CostEstimate estimatePoolPlan(const PoolLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg);
// The cheapest plan that fits; throws DoesNotFit naming the layer otherwise.
TilePlan choosePoolTiling(const PoolLayer& layer, const hw::HwConfig& cfg, bool latency_hiding,
                          CostEstimate* estimate = nullptr);

// Where the layer's input and output lie when it runs alone: X | Y.
ArenaPlacement standalonePoolPlacement(const PoolLayer& layer, const hw::HwConfig& cfg);
// The program (and its micro-ops as constants at `constants_offset`). Throws
// DoesNotFit when an instruction field cannot hold the layer's sizes.
ConvProgram generatePoolProgram(const PoolLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                                uint64_t constants_offset, const ArenaPlacement& placement);

}  // namespace vdla::accel
