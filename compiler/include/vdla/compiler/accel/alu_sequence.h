// The ALU instructions that turn a tile's int32 accumulators into int8
// outputs, following the vdla.QConv definition exactly:
//   acc = bias1 (init) ; acc += GEMM ; acc = RSHR(acc, shift1) ; acc *= mult ;
//   res *= residual_mult ; acc += res ; acc += bias2 ; acc = RSHR(acc, shift2) ;
//   acc = MAX(acc, clip_lo) ; acc = MIN(acc, clip_hi)
// with two fusions the ISA offers: the multiply and the second shift become one
// MULSHR when no residual or bias2 comes between them, and the two bounds one
// CLIP; on a config with the fused_requant extension MULSHR and CLIP are one
// REQ (its operand a parameter vector, the bounds in its immediate). In the
// wide_product form a residual belongs to the accumulator: the
// tile's accumulators are loaded with R and scaled before the GEMM,
//   acc = R (LOAD ACC8) ; acc *= residual_mult (a MULSHR with residual_shift) ; acc += bias1 ; acc += GEMM ;
//   acc = MULSHR(acc, mult, shift2) ; acc = CLIP(acc)
// so no separate residual region or residual pass is needed.
// On a config with alu_bias_clear the bias init and a lone REQ or FREQ become
// one REQ/FREQ with bias_clear, which adds the bias and leaves the
// accumulators zero for the next tile: one ALU pass per output vector (two
// in the wide residual form: the residual's scaling stays before the GEMM).
// Passes with a neutral parameter are dropped; a per-channel parameter whose
// values are all equal and fit the immediate field becomes an immediate, the
// others are vectors kept in the accumulator memory for the whole layer.
#pragma once

#include <cstdint>
#include <vector>

#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::accel {

struct AluPass {
  enum class Dst { Acc, Residual };
  enum class Src { Imm, Param, Residual };
  hw::AluOp op = hw::AluOp::Mov;
  Dst dst = Dst::Acc;
  Src src = Src::Imm;
  int32_t imm = 0;  // Src::Imm: the operand; REQ: its clip bounds
  int param = -1;   // index into AluSequence::params for Src::Param
  // bias_clear (extension alu_bias_clear): the params vector added to the
  // accumulator first, kept in the entry after the operand's (conv_codegen
  // interleaves the two per oc block); the pass writes OUT and zeroes ACC.
  int bias_param = -1;
};

struct AluSequence {
  std::vector<std::vector<int32_t>> params;  // per-channel vectors, each [o]
  bool residual_in_acc = false;              // R is loaded into the accumulators first
  // The last pass is a bias_clear pass that takes the bias and leaves the
  // accumulators at zero. Without residual_in_acc `init` is empty and a
  // tile's accumulators must start at zero (conv_codegen zeroes them once
  // per layer); with it `init` holds only the residual's scaling, and each
  // tile's load of R overwrites the zeros.
  bool bias_clear = false;
  std::vector<AluPass> init;   // before the first GEMM of a tile, in order
  std::vector<AluPass> after;  // after the last GEMM, in order
  int residualPasses() const;  // passes that read the residual region
};

AluSequence buildAluSequence(const ConvLayer& layer, const hw::HwConfig& cfg);

}  // namespace vdla::accel
