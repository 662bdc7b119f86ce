#pragma once
// Small constructors for instructions, so that program generators read like the
// assembly they produce. Dependency flags are set on the returned value.
#include "vdla/hw/isa.h"

namespace vdla::hw {

struct Padding {
  uint32_t top = 0, bottom = 0, left = 0, right = 0;
};

// A 2-D transfer between DRAM entry `dram` and SRAM entry `sram`: y rows of x
// entries, DRAM rows `stride` entries apart.
inline Instruction makeLoad(Memory mem, uint32_t sram, uint64_t dram, uint32_t y, uint32_t x, uint32_t stride,
                            Padding pad = {}) {
  Instruction i;
  i.opcode = Opcode::Load;
  i.memory = mem;
  i.sram_base = sram;
  i.dram_base = dram;
  i.y_size = y;
  i.x_size = x;
  i.x_stride = stride;
  i.y_pad_top = pad.top;
  i.y_pad_bottom = pad.bottom;
  i.x_pad_left = pad.left;
  i.x_pad_right = pad.right;
  return i;
}

inline Instruction makeStore(uint32_t sram, uint64_t dram, uint32_t y, uint32_t x, uint32_t stride) {
  Instruction i = makeLoad(Memory::Output, sram, dram, y, x, stride);
  i.opcode = Opcode::Store;
  return i;
}

// Loop nest shared by GEMM and ALU: iters (outer, inner) around uops [begin, end).
struct LoopNest {
  uint32_t uop_begin = 0, uop_end = 0, iter_out = 1, iter_in = 1;
  uint32_t dst_out = 0, dst_in = 0, src_out = 0, src_in = 0, wgt_out = 0, wgt_in = 0;
};

inline Instruction applyLoopNest(Instruction i, const LoopNest& l) {
  i.uop_begin = l.uop_begin;
  i.uop_end = l.uop_end;
  i.iter_out = l.iter_out;
  i.iter_in = l.iter_in;
  i.dst_factor_out = l.dst_out;
  i.dst_factor_in = l.dst_in;
  i.src_factor_out = l.src_out;
  i.src_factor_in = l.src_in;
  return i;
}

inline Instruction makeGemm(const LoopNest& l, bool reset = false) {
  Instruction i;
  i.opcode = Opcode::Gemm;
  i.reset = reset;
  i = applyLoopNest(i, l);
  i.wgt_factor_out = l.wgt_out;
  i.wgt_factor_in = l.wgt_in;
  return i;
}

// DWGEMM (extension depthwise_taps): l.wgt_in must be 0 (it has no field).
inline Instruction makeDwGemm(const LoopNest& l, uint32_t taps, uint32_t stride) {
  Instruction i;
  i.opcode = Opcode::DwGemm;
  i = applyLoopNest(i, l);
  i.wgt_factor_out = l.wgt_out;
  i.taps = taps;
  i.stride = stride;
  return i;
}

// ALU with acc[src] as the second operand.
inline Instruction makeAlu(AluOp op, const LoopNest& l) {
  Instruction i;
  i.opcode = Opcode::Alu;
  i.alu_op = op;
  return applyLoopNest(i, l);
}

// ALU with an immediate second operand.
inline Instruction makeAluImm(AluOp op, const LoopNest& l, int32_t imm) {
  Instruction i = makeAlu(op, l);
  i.use_imm = true;
  i.imm = imm;
  return i;
}

inline Instruction makeFinish() { return Instruction{}; }

}  // namespace vdla::hw
