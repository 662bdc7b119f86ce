#pragma once
// The instruction fields in one list: X(Enumerator, member of Instruction).
// hw::Field, fieldName(), getField() and setField() (isa_layout.h) are
// generated from it, and through them the encoder, the decoder, the
// parameter generator (each field's bit position in the RTL package and the
// HLS header), the instruction comparison and the assembler's field names.
// Which opcode encodes which field, and at what width, is IsaLayout's
// per-opcode order (isa_layout.cpp).
#define VDLA_ISA_FIELDS(X)        \
  X(Opcode, opcode)               \
  X(PopPrev, pop_prev)            \
  X(PopNext, pop_next)            \
  X(PushPrev, push_prev)          \
  X(PushNext, push_next)          \
  X(Memory, memory)               \
  X(SramBase, sram_base)          \
  X(DramBase, dram_base)          \
  X(YSize, y_size)                \
  X(XSize, x_size)                \
  X(XStride, x_stride)            \
  X(YPadTop, y_pad_top)           \
  X(YPadBottom, y_pad_bottom)     \
  X(XPadLeft, x_pad_left)         \
  X(XPadRight, x_pad_right)       \
  X(Reset, reset)                 \
  X(Requant, requant)             \
  X(AluOp, alu_op)                \
  X(UseImm, use_imm)              \
  X(BiasClear, bias_clear)        \
  X(UopBegin, uop_begin)          \
  X(UopEnd, uop_end)              \
  X(IterOut, iter_out)            \
  X(IterIn, iter_in)              \
  X(DstFactorOut, dst_factor_out) \
  X(DstFactorIn, dst_factor_in)   \
  X(SrcFactorOut, src_factor_out) \
  X(SrcFactorIn, src_factor_in)   \
  X(WgtFactorOut, wgt_factor_out) \
  X(WgtFactorIn, wgt_factor_in)   \
  X(Taps, taps)                   \
  X(Stride, stride)               \
  X(LaneBlock, lane_block)        \
  X(Imm, imm)
