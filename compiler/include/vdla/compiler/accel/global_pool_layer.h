// Quantised global average pooling (com.microsoft.QLinearGlobalAveragePool,
// the pooling before the classifier of ResNet and MobileNet) on the
// accelerator, with the instructions it already has.
//
// The CPU computes it from the integer sum S of a channel's elements in float
// (S minus the zero points, times x_scale / (y_scale * H*W), round half to
// even). The output is a function of S alone, and S takes 255*H*W + 1 values,
// so the compiler runs the CPU's own kernel on channels whose sums cover
// them all and looks for an integer form
//   Y = clip((((S << p) + c) * m + 2^(s-1)) >> s, -128, 127)
// (its product in 64 bits, as MULSHR computes it) that reproduces every
// output (exact_integer_form.h). Only a pooling with
// such a form, over at most kMaxGlobalPoolElements elements per channel, is
// offloaded.
//
// The program: per tile of channel blocks, LOAD ACC8 of their H*W entries
// each, ALU MOV of the first entry and ADD of the others into one entry per
// block, SHR left by p, ADD of c (a parameter vector) and REQ (or MULSHR and
// CLIP) by m and s, which writes OUT; then STORE of one entry per block. The input is in the
// output layout, where the last convolution wrote it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/exact_integer_form.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

// The most elements per channel whose sums the compiler tabulates.
constexpr int64_t kMaxGlobalPoolElements = 256;

struct GlobalPoolLayer {
  std::string name;
  int64_t n = 1, c = 0, h = 0, w = 0;  // input NCHW; the output is [n, c, 1, 1]
  ScaledForm form;                     // of S
};

// Why a node is not a global average pooling the accelerator can run ("" when
// it is), including the case of no exact integer form.
std::string whyNotOffloadableGlobalPool(const ir::Node& node);
// The layer of a QLinearGlobalAveragePool node (whyNotOffloadableGlobalPool must be "").
GlobalPoolLayer globalPoolLayerFromNode(const ir::Node& node);

// Plans: TilePlan's rows is the channel blocks per tile, threads 2 for
// double-buffered ACC halves.
CostEstimate estimateGlobalPoolPlan(const GlobalPoolLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg);
// The cheapest plan that fits; throws DoesNotFit naming the layer otherwise.
TilePlan chooseGlobalPoolTiling(const GlobalPoolLayer& layer, const hw::HwConfig& cfg, bool latency_hiding,
                                CostEstimate* estimate = nullptr);

// Where the input and output lie when the layer runs alone: X | Y.
ArenaPlacement standaloneGlobalPoolPlacement(const GlobalPoolLayer& layer, const hw::HwConfig& cfg);
// The program (its parameter vectors and micro-ops as constants at
// `constants_offset`). Throws DoesNotFit when an instruction field cannot
// hold the layer's sizes.
ConvProgram generateGlobalPoolProgram(const GlobalPoolLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                                      uint64_t constants_offset, const ArenaPlacement& placement);

}  // namespace vdla::accel
