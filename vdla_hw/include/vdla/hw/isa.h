#pragma once
// The VDLA instruction set in one screen. docs/isa.md is the prose version.
//
// A program is a stream of 128-bit instructions fetched from DRAM and dispatched
// in order to three modules that run concurrently:
//   load    : LOAD WGT, LOAD INP
//   compute : LOAD UOP, LOAD ACC, LOAD ACC8, GEMM, DWGEMM, ALU, SETREQ, FINISH
//   store   : STORE OUT
// Each module executes its own instructions in order. They synchronise only
// through four dependency-token queues (load->compute, compute->load,
// compute->store, store->compute); every instruction can pop a token from and
// push a token to its previous and next stage before and after it runs.
#include <array>
#include <cstdint>

#include "vdla/hw/config.h"

namespace vdla::hw {

// DwGemm exists only on configs with the depthwise_taps extension, SetReq
// only on configs with gemm_requant.
enum class Opcode : uint8_t { Load = 0, Store = 1, Gemm = 2, Alu = 3, Finish = 4, DwGemm = 5, SetReq = 6 };
constexpr int kNumOpcodes = 7;
const char* opcodeName(Opcode op);  // "LOAD", ...

enum class AluOp : uint8_t {
  Min = 0,   // dst = min(dst, b)
  Max = 1,   // dst = max(dst, b)
  Add = 2,   // dst = dst + b                        (wrapping, 32-bit)
  Mul = 3,   // dst = dst * b                        (low 32 bits of the product)
  Shr = 4,   // dst = dst >> b, arithmetic; b < 0 shifts left by -b; b is clamped to [-31, 31]
  Rshr = 5,  // as Shr, but rounds half up for b > 0: (dst + (1 << (b-1))) >> b in 64-bit
  Mov = 6,   // dst = b
  // The two requantisation helpers: b packs their operands so that a per-channel
  // tensor operand carries them as well as an immediate does.
  Clip = 7,    // dst = min(max(dst, lo), hi); lo = int8(b[7:0]), hi = int8(b[15:8])
  MulShr = 8,  // dst = low 32 bits of (dst * m + r) >> s in 64-bit, m = b >> 6 (arithmetic),
               // s = b[5:0], r = s > 0 ? 1 << (s-1) : 0 (round half up)
  // Extension fused_requant: a whole requantisation in one pass.
  Req = 9,  // dst = CLIP(MULSHR(dst, b), imm): MULSHR by b, then CLIP with the bounds in the
            // instruction's imm (imm[7:0], imm[15:8]) whether or not b is the immediate
  // Extension float_requant (which needs fused_requant): onnxruntime's float
  // requantisation, bit for bit (vdla/hw/float_requant.h).
  FReq = 10,  // dst = clamp(round_half_even(fl(fl(dst) * float(b))) + imm, -128, 127), b a binary32
              // bit pattern, imm the zero point whether or not b is the immediate
};
constexpr int kNumAluOps = 11;  // every op the ISA defines; numAluOps(cfg) says which a config has
// ALU ops 0 .. numAluOps(cfg) - 1 exist on a config (REQ only with fused_requant,
// FREQ only with float_requant).
int numAluOps(const HwConfig& cfg);
const char* aluOpName(AluOp op);  // "MIN", ...

enum class Module : uint8_t { Load = 0, Compute = 1, Store = 2 };
const char* moduleName(Module m);  // "load", "compute", "store"

// A decoded instruction. One flat struct for every kind: the fields that a kind
// does not use stay zero, and IsaLayout says which fields each kind encodes.
struct Instruction {
  Opcode opcode = Opcode::Finish;
  // Dependency flags. "prev" and "next" are relative to the executing module in
  // the order load -> compute -> store.
  bool pop_prev = false, pop_next = false, push_prev = false, push_next = false;

  // LOAD / STORE: a 2-D transfer of y_size rows of x_size entries; DRAM rows are
  // x_stride entries apart, SRAM rows are packed. Zero padding is added around
  // the loaded block (loads only). Addresses count entries of the memory.
  Memory memory = Memory::Uop;
  uint32_t sram_base = 0;
  uint64_t dram_base = 0;
  uint32_t y_size = 0, x_size = 0, x_stride = 0;
  uint32_t y_pad_top = 0, y_pad_bottom = 0, x_pad_left = 0, x_pad_right = 0;

  // GEMM / ALU: for o < iter_out, i < iter_in, u in [uop_begin, uop_end):
  //   dst = uop[u].dst + o*dst_factor_out + i*dst_factor_in   (accumulator index)
  //   src = uop[u].src + o*src_factor_out + i*src_factor_in   (GEMM: input, ALU: accumulator)
  //   wgt = uop[u].wgt + o*wgt_factor_out + i*wgt_factor_in   (GEMM only)
  bool reset = false;  // GEMM: write zero instead of accumulating
  // GEMM (extension gemm_requant): each iteration's micro-ops are one
  // reduction. The first (u == uop_begin) starts from the requantisation
  // state's bias instead of ACC[dst]; every one writes its sum to ACC[dst]
  // and OUT[dst] = op(sum, operand, imm) of the state (REQ or FREQ), so the
  // last write of each iteration leaves the layer's int8 output.
  bool requant = false;
  // DWGEMM (extension depthwise_taps): a depthwise convolution along rows. The
  // loop order is u outermost, then o, then i; the last inputs read in the
  // current i-run form a window (win[0] the newest, entries before the run's
  // first input read as zero), and
  //   for u, for o, for i:
  //     window.push(INP[uop[u].src + o*src_factor_out + i*src_factor_in])
  //     if i >= taps-1 and (i - (taps-1)) % stride == 0, with j = (i - (taps-1)) / stride:
  //       d = uop[u].dst + o*dst_factor_out + j*dst_factor_in
  //       w = uop[u].wgt + o*wgt_factor_out
  //       ACC[d][b][c] += sum over t < depthwise_taps of win[t][b][k] * WGT[w][t][k],  k = lane_block*block_out + c
  // Iterations that write nothing only fill the window.
  // With requant (extension gemm_requant) each output's micro-ops are one
  // reduction, as a requantising GEMM's: the writes of u == uop_begin start
  // from the requantisation state's bias instead
  // of ACC[d], and every write also sets OUT[d] = op(sum, operand, imm) of
  // the state, so the last micro-op's leave the requantised outputs.
  // On a config whose block_in is G > 1 times its block_out, lane_block
  // (0 .. G-1) picks the input channels: output lane c takes channel
  // lane_block*block_out + c of the input entry and of the weight row.
  uint32_t taps = 0, stride = 0, lane_block = 0;
  uint32_t uop_begin = 0, uop_end = 0;
  uint32_t iter_out = 0, iter_in = 0;
  uint32_t dst_factor_out = 0, dst_factor_in = 0;
  uint32_t src_factor_out = 0, src_factor_in = 0;
  uint32_t wgt_factor_out = 0, wgt_factor_in = 0;
  AluOp alu_op = AluOp::Min;
  bool use_imm = false;  // ALU: second operand is `imm` instead of acc[src]
  // ALU (extension alu_bias_clear): the op's first operand is ACC[dst] +
  // ACC[src+1] (wrapping int32; ACC[dst] alone with use_imm), its result goes
  // to OUT[dst] only, and ACC[dst] becomes zero. A convolution's bias then
  // rides in its requantisation pass, and the zeroed accumulators are the
  // next tile's initial value.
  bool bias_clear = false;
  int32_t imm = 0;
  // SETREQ (extension gemm_requant) sets the requantisation state of the
  // compute module from alu_op (REQ or FREQ), imm and the ACC entries at
  // sram_base: operand = ACC[sram_base], bias = ACC[sram_base + 1], copied
  // when SETREQ executes. Requantising GEMMs use it until the next SETREQ.

  bool operator==(const Instruction& o) const;
  bool operator!=(const Instruction& o) const { return !(*this == o); }
};

// Outputs a DWGEMM completes per run of its inner loop: the iterations i >=
// taps-1 with (i - (taps-1)) divisible by stride.
uint64_t dwgemmWritesPerRun(const Instruction& insn);
// Multiply-adds of a GEMM (every product of every iteration) or a DWGEMM
// (taps products per output lane); 0 for every other instruction.
uint64_t gemmMacs(const Instruction& insn, const HwConfig& cfg);

// Which module executes an instruction (the fetch unit's routing rule).
Module moduleOf(const Instruction& insn);

// A micro-op: three SRAM indices packed into 32 bits (dst | src | wgt from the
// least significant bit; widths from the config, see IsaLayout).
struct Uop {
  uint32_t dst = 0, src = 0, wgt = 0;
  bool operator==(const Uop& o) const { return dst == o.dst && src == o.src && wgt == o.wgt; }
};

constexpr int kInstructionBytes = 16;
constexpr int kUopBytes = 4;
using EncodedInstruction = std::array<uint64_t, 2>;  // [0] holds bits 0..63

}  // namespace vdla::hw
