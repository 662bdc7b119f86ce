#pragma once
// Text assembly for VDLA programs. One instruction per line; ';' or '#' starts a
// comment. Operands are key=value groups and bare flag words:
//
//   LOAD  INP  sram=0 dram=0x40 y=4 x=8 stride=8 pad=1,1,1,1 pop_next
//   LOAD  UOP  sram=0 dram=0 y=1 x=4 stride=4
//   GEMM  uops=0:4 iters=2,3 dst=16,1 src=16,1 wgt=0,1 reset push_prev
//   ALU   MAX  uops=0:1 iters=1,16 dst=0,1 src=0,1 imm=0
//   STORE OUT  sram=0 dram=0x100 y=4 x=8 stride=8 pop_prev push_prev
//   FINISH
//
// pad is top,bottom,left,right; iters/dst/src/wgt are outer,inner; uops is a
// half-open range begin:end. Omitted groups are zero. ALU takes acc[src] as its
// second operand unless imm= is given. Flags: reset (GEMM), pop_prev, pop_next,
// push_prev, push_next.
#include <string>
#include <vector>

#include "vdla/hw/isa.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::hw {

// Parses assembly text. Every value is range-checked against the layout; errors
// read "<origin>:<line>: <reason>".
std::vector<Instruction> assemble(const std::string& text, const IsaLayout& layout, const std::string& origin);

// One instruction in the canonical text form accepted by assemble().
std::string disassemble(const Instruction& insn);

// A whole program, one line per instruction, each with its index as a comment.
std::string disassembleProgram(const std::vector<Instruction>& program);

}  // namespace vdla::hw
