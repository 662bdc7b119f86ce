// Quantised additions that are operators of their own (com.microsoft.QLinearAdd,
// as pre-quantised exports such as MobileNetV2's write their residual adds) on
// the accelerator, with the instructions it already has.
//
// On the CPU the addition is computed in float (scale ratios, two fused
// multiply-adds, round half to even: the reference kernel). The accelerator
// has only integers, so the compiler looks for an integer form
//   C = clip((ma*A + mb*B + k + 2^(s-1)) >> s, -128, 127)
// that gives the reference kernel's own output for every one of the 65,536
// (A, B) pairs of int8 values: it runs the kernel on all of them and tries the
// nearest multipliers and offsets at the finest shift whose sums fit 32 bits.
// Only an addition with such a form is offloaded, so the accelerator's result
// equals the CPU's whatever the data; one without stays on the CPU and says so.
//
// The program: per tile of consecutive entries, LOAD ACC8 of A and of B into
// the accumulators, ALU MUL of each by its multiplier (parameter vectors, read
// once through the operand register), ADD of B to A, ADD of k, and REQ (or
// MULSHR and CLIP without fused_requant), which also writes OUT; then STORE.
// With REQ and bias_clear, k rides in the REQ as its bias (one pass fewer).
// Where INP and OUT entries are alike and GEMMs requantise (pynq, zcu104)
// the load module may instead load A and B into INP and two requantising
// GEMMs over an identity block move them into the accumulators, beside the
// ALU passes of the tile before (add_codegen.cpp; the cost model picks). A,
// B and C share the output layout (block_out channel blocks, block_in ones on
// a config with an output interleave: conv_layer.h), so both operands
// can be convolution outputs that never left the device.
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

// C = clip((ma*A + mb*B + k + 2^(shift-1)) >> shift, -128, 127), every
// intermediate within int32 (exact_integer_form.h).
using IntegerAddForm = IntegerAffineForm;

struct AddLayer {
  std::string name;
  int64_t n = 1, c = 0, h = 0, w = 0;  // the NCHW shape of A, B and C
  IntegerAddForm form;
};

// Why a node is not an addition the accelerator can run ("" when it is),
// including the case of no exact integer form.
std::string whyNotOffloadableAdd(const ir::Node& node);
// The layer of a QLinearAdd node (whyNotOffloadableAdd must be "").
AddLayer addLayerFromNode(const ir::Node& node);

// The integer form that reproduces `reference` (C for each A, B in
// [-128, 127], indexed [(A + 128) * 256 + B + 128]) exactly, searched near the
// real-valued ratios `ratio_a`, `ratio_b` and offset `fixed` (C ~ round(ratio_a*A
// + ratio_b*B + fixed)); nullopt when none of the forms tried matches
// (findExactAffineForm).
std::optional<IntegerAddForm> findExactAddForm(const std::vector<int8_t>& reference, double ratio_a, double ratio_b,
                                               double fixed);

// Plans: TilePlan's rows is the entries per tile (a run of consecutive
// entries of the packed tensors), threads 2 for double-buffered ACC halves.
CostEstimate estimateAddPlan(const AddLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg);
// The cheapest plan that fits; throws DoesNotFit naming the layer otherwise.
TilePlan chooseAddTiling(const AddLayer& layer, const hw::HwConfig& cfg, bool latency_hiding,
                         CostEstimate* estimate = nullptr);

// Where A (x), B (r) and C (y) lie when the layer runs alone: X | R | Y.
ArenaPlacement standaloneAddPlacement(const AddLayer& layer, const hw::HwConfig& cfg);
// The program (its parameter vectors and micro-ops as constants at
// `constants_offset`). Throws DoesNotFit when an instruction field cannot
// hold the layer's sizes.
ConvProgram generateAddProgram(const AddLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                               uint64_t constants_offset, const ArenaPlacement& placement);

}  // namespace vdla::accel
