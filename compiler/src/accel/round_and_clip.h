// The last passes of the integer forms of exact_integer_form.h, shared by the
// addition and global pooling programs: multiply by m, round half up by
// 2^shift in 64 bits, clip to int8. With fused_requant that is one REQ whose
// operand, a parameter vector, holds m and the shift (m << 6 | shift) and
// whose immediate holds the bounds; without it MULSHR by the same operand and
// CLIP with an immediate.
#pragma once

#include <cstdint>

#include "vdla/hw/config.h"
#include "vdla/hw/instruction_builders.h"

namespace vdla::accel {

// The clip bounds [-128, 127] as CLIP and REQ read them: lo in bits 7:0, hi in 15:8.
constexpr int32_t kInt8Bounds = (127 << 8) | 0x80;

// MULSHR's and REQ's operand: the multiplier above bit 6, the shift below.
inline int32_t mulShrOperand(int32_t m, int shift) { return int32_t(uint32_t(m) << 6) | shift; }

// ALU passes (and cycles per vector: the operand is constant) they take.
inline int64_t roundAndClipPasses(const hw::HwConfig& cfg) { return cfg.fused_requant ? 1 : 2; }

// Emits the passes over `loop`, whose micro-ops' src is the operand vector;
// returns the last one's index.
template <class Emit>
size_t emitRoundAndClip(const hw::HwConfig& cfg, const hw::LoopNest& loop, Emit&& emit) {
  if (cfg.fused_requant) {
    hw::Instruction req = hw::makeAluImm(hw::AluOp::Req, loop, kInt8Bounds);
    req.use_imm = false;  // the operand is the parameter vector; the immediate holds the bounds
    return emit(req);
  }
  emit(hw::makeAlu(hw::AluOp::MulShr, loop));
  return emit(hw::makeAluImm(hw::AluOp::Clip, loop, kInt8Bounds));
}

}  // namespace vdla::accel
