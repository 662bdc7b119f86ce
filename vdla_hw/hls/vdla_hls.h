#pragma once
// VDLA in HLS C++: what the fetch, load, compute and store modules share.
//
// Every parameter comes from the generated vdla_params.h of one config (include
// path <build>/generated/vdla_hw/<config>); nothing here restates one. The code
// follows the HLS rules: no dynamic allocation, no recursion, every loop bound
// by an instruction field of known width. It compiles with the vendor headers
// (Vitis HLS C simulation and synthesis) and with g++ through the host-side
// headers in host/ (the project's C simulation, vdla_hw/hls/csim/).
//
// Modules are written as *step* functions: one call examines the head of the
// module's command queue and executes it if its tokens allow, so that one
// scheduler -- vdla_top in hardware, the C-simulation harness on the host --
// can interleave them and honour the dependency tokens exactly as fsim does.
// Every project-built C simulation wraps the code in a namespace of its own
// config (VDLA_HLS_NS), so several configs link into one program.
#include <stdint.h>

#include <ap_int.h>
#include <hls_stream.h>

#include "vdla/hw/registers.h"
#include "vdla_params.h"

#ifdef VDLA_HLS_CHECKED_DRAM
#include "dram_port.h"
#define VDLA_HLS_POLL_CANCEL() vdla_hls_host::pollCancel()
#else
#define VDLA_HLS_POLL_CANCEL()
#endif

#ifndef VDLA_HLS_NS
#define VDLA_HLS_NS vdla_hls
#endif

namespace VDLA_HLS_NS {

using namespace vdla_params;

constexpr int min_int(int a, int b) { return a < b ? a : b; }

// ---------------------------------------------------------------- DRAM words
// A DRAM port moves words of min(entry, AXI data) bits, so an entry narrower
// than the bus (a micro-op) is one word at its own byte address, and a wider
// one (a weight block) is a run of full bus words.
constexpr int INP_WORD_BITS = min_int(INP_ENTRY_BITS, AXI_DATA_BITS);
constexpr int WGT_WORD_BITS = min_int(WGT_ENTRY_BITS, AXI_DATA_BITS);
constexpr int ACC_WORD_BITS = min_int(ACC_ENTRY_BITS, AXI_DATA_BITS);
constexpr int ACC8_WORD_BITS = min_int(ACC8_ENTRY_BITS, AXI_DATA_BITS);
constexpr int OUT_WORD_BITS = min_int(OUT_ENTRY_BITS, AXI_DATA_BITS);
constexpr int INP_WORDS = INP_ENTRY_BITS / INP_WORD_BITS;
constexpr int WGT_WORDS = WGT_ENTRY_BITS / WGT_WORD_BITS;
constexpr int ACC_WORDS = ACC_ENTRY_BITS / ACC_WORD_BITS;
constexpr int ACC8_WORDS = ACC8_ENTRY_BITS / ACC8_WORD_BITS;
constexpr int OUT_WORDS = OUT_ENTRY_BITS / OUT_WORD_BITS;

typedef ap_uint<INSN_BITS> insn_t;

#ifdef VDLA_HLS_CHECKED_DRAM
template <int W>
using dram_ptr = vdla_hls_host::DramPort<W>;
#else
template <int W>
using dram_ptr = ap_uint<W>*;
#endif

// All DRAM ports of the accelerator. In hardware they share one AXI master
// (bundle "data"); addresses are absolute, the instructions carry them.
struct DramPorts {
  dram_ptr<INSN_BITS> insn;
  dram_ptr<UOP_BITS> uop;
  dram_ptr<INP_WORD_BITS> inp;
  dram_ptr<WGT_WORD_BITS> wgt;
  dram_ptr<ACC_WORD_BITS> acc;
  dram_ptr<ACC8_WORD_BITS> acc8;
  dram_ptr<OUT_WORD_BITS> out;
};

// ---------------------------------------------------------------- memories
// Element arrays; the synthesis top partitions the inner dimensions completely
// so that GEMM reads a whole entry per cycle.
typedef int8_t inp_mem_t[INP_DEPTH][BATCH][BLOCK_IN];
typedef int8_t wgt_mem_t[WGT_DEPTH][BLOCK_OUT][BLOCK_IN];
typedef int32_t acc_mem_t[ACC_DEPTH][BATCH][BLOCK_OUT];
typedef int8_t out_mem_t[OUT_DEPTH][BATCH][BLOCK_OUT];
typedef uint32_t uop_mem_t[UOP_DEPTH];

// ---------------------------------------------------------------- commands
// What fetch puts into a module's command queue.
struct Command {
  insn_t insn;
  uint32_t index;  // position in the program, for errors and the status registers
};

// Dependency-token queues, as in fsim: counters bounded by TOKEN_QUEUE_DEPTH,
// numbered as in the TOKENS register (vdla/hw/interface_table.h).
enum TokenQueueId {
  TQ_L2C = vdla::hw::regs::kTqLoadToCompute,
  TQ_C2L = vdla::hw::regs::kTqComputeToLoad,
  TQ_C2S = vdla::hw::regs::kTqComputeToStore,
  TQ_S2C = vdla::hw::regs::kTqStoreToCompute
};
struct TokenCounts {
  uint32_t count[4];
};

// Module states and error codes: the values of the MODULE_STATE and
// ERROR_CODE registers, shared with the RTL (vdla/hw/registers.h).
namespace regs = vdla::hw::regs;
enum ModuleStateCode {
  ST_IDLE = regs::kStIdle,
  ST_WAIT_TOKEN = regs::kStWaitToken,
  ST_WAIT_ROOM = regs::kStWaitRoom,
  ST_BUSY = regs::kStBusy,
  ST_FETCH_WAIT_SLOT = regs::kStFetchWaitQueue,
  ST_FETCH_DONE = regs::kStFetchDone,
};

enum ErrorCode {
  ERR_NONE = 0,
  ERR_OPCODE = regs::kErrOpcode,
  ERR_MEMORY = regs::kErrMemory,
  ERR_ALU_OP = regs::kErrAluOp,
  ERR_STRAY_BITS = regs::kErrStrayBits,
  ERR_IMM_WITHOUT_USE_IMM = regs::kErrImm,
  ERR_MISSING_NEIGHBOUR = regs::kErrFlags,
  ERR_PADDING = regs::kErrPad,
  ERR_FINISH_NOT_LAST = regs::kErrFinishNotLast,
  ERR_LAST_NOT_FINISH = regs::kErrNoFinish,
  ERR_COUNT_ZERO = regs::kErrEmpty,
  ERR_SRAM_RANGE = regs::kErrSramRange,
  ERR_UOP_RANGE = regs::kErrUopRange,
  ERR_DST_INDEX = regs::kErrDstRange,
  ERR_SRC_INDEX = regs::kErrSrcRange,
  ERR_WGT_INDEX = regs::kErrWgtRange,
  ERR_AXI_READ = regs::kErrAxiRead,
  ERR_AXI_WRITE = regs::kErrAxiWrite,
  ERR_ADDR_OVERFLOW = regs::kErrAddrOverflow,
  ERR_TOKENS_LEFT = regs::kErrTokensLeft,
  ERR_DW_SHAPE = regs::kErrDwShape,
};

enum ModuleId { MOD_FETCH = 0, MOD_LOAD = 1, MOD_COMPUTE = 2, MOD_STORE = 3 };

// The registers a module keeps between steps: the head of its command queue
// (it stays there while it waits, as in fsim and the RTL).
struct ModuleRegs {
  Command head;
  bool head_valid;
};

// What one step of a module did.
struct StepResult {
  uint8_t state;         // ModuleStateCode after the step
  bool progressed;       // the step changed state (read, dispatched or executed)
  bool completed;        // an instruction finished (its queue slot is free)
  bool finish;           // the completed instruction was FINISH
  uint8_t error;         // ErrorCode, ERR_NONE if none
  uint32_t error_index;  // instruction index of the error
  uint32_t error_info;   // detail (the RTL's ERROR_INFO)
  uint64_t gemm_uops;    // micro-op iterations executed (performance counters)
  uint64_t alu_vectors;
};

// ---------------------------------------------------------------- fields
template <int LSB, int W>
inline uint64_t field(const insn_t& insn) {
  return insn.range(LSB + W - 1, LSB).to_uint64();
}

// Signed field: the W-bit two's complement value, sign-extended.
template <int LSB, int W>
inline int64_t signed_field(const insn_t& insn) {
  const uint64_t raw = field<LSB, W>(insn);
  const uint64_t sign = uint64_t(1) << (W - 1);
  return int64_t(raw ^ sign) - int64_t(sign);
}

struct Flags {
  bool pop_prev, pop_next, push_prev, push_next;
};

// The flag and opcode positions are common to every opcode (docs/isa.md).
inline unsigned opcode_of(const insn_t& i) { return unsigned(field<LOAD_OPCODE_LSB, LOAD_OPCODE_W>(i)); }
inline Flags flags_of(const insn_t& i) {
  Flags f;
  f.pop_prev = field<LOAD_POP_PREV_LSB, 1>(i) != 0;
  f.pop_next = field<LOAD_POP_NEXT_LSB, 1>(i) != 0;
  f.push_prev = field<LOAD_PUSH_PREV_LSB, 1>(i) != 0;
  f.push_next = field<LOAD_PUSH_NEXT_LSB, 1>(i) != 0;
  return f;
}

// LOAD and STORE share one layout.
struct Xfer {
  unsigned memory;
  uint32_t sram_base;
  uint64_t dram_base;
  uint32_t y_size, x_size, x_stride;
  uint32_t y_pad_top, y_pad_bottom, x_pad_left, x_pad_right;
};

inline Xfer decode_xfer(const insn_t& i) {
  Xfer x;
  x.memory = unsigned(field<LOAD_MEMORY_LSB, LOAD_MEMORY_W>(i));
  x.sram_base = uint32_t(field<LOAD_SRAM_BASE_LSB, LOAD_SRAM_BASE_W>(i));
  x.dram_base = field<LOAD_DRAM_BASE_LSB, LOAD_DRAM_BASE_W>(i);
  x.y_size = uint32_t(field<LOAD_Y_SIZE_LSB, LOAD_Y_SIZE_W>(i));
  x.x_size = uint32_t(field<LOAD_X_SIZE_LSB, LOAD_X_SIZE_W>(i));
  x.x_stride = uint32_t(field<LOAD_X_STRIDE_LSB, LOAD_X_STRIDE_W>(i));
  x.y_pad_top = uint32_t(field<LOAD_Y_PAD_TOP_LSB, LOAD_Y_PAD_TOP_W>(i));
  x.y_pad_bottom = uint32_t(field<LOAD_Y_PAD_BOTTOM_LSB, LOAD_Y_PAD_BOTTOM_W>(i));
  x.x_pad_left = uint32_t(field<LOAD_X_PAD_LEFT_LSB, LOAD_X_PAD_LEFT_W>(i));
  x.x_pad_right = uint32_t(field<LOAD_X_PAD_RIGHT_LSB, LOAD_X_PAD_RIGHT_W>(i));
  return x;
}

// GEMM, DWGEMM and ALU: the loop nest over micro-ops.
struct LoopNest {
  bool is_alu, is_dw, reset, use_imm;
  bool requant;     // GEMM (extension gemm_requant): requantise through the SETREQ state
  bool bias_clear;  // ALU (extension alu_bias_clear): + ACC[src+1] first, result to OUT only, ACC[dst] = 0
  unsigned alu_op;
  uint32_t uop_begin, uop_end, iter_out, iter_in;
  uint32_t dst_out, dst_in, src_out, src_in, wgt_out, wgt_in;
  uint32_t taps, stride, lane_block;  // DWGEMM
  int32_t imm;
};

inline LoopNest decode_loop(const insn_t& i) {
  LoopNest n = {};
  const unsigned op = opcode_of(i);
  // DEPTHWISE_TAPS is a constant: without the extension the DWGEMM decoder
  // (and everything behind is_dw) is not synthesised.
  if (DEPTHWISE_TAPS > 0 && op == OPCODE_DWGEMM) {
    n.is_dw = true;
    n.uop_begin = uint32_t(field<DWGEMM_UOP_BEGIN_LSB, DWGEMM_UOP_BEGIN_W>(i));
    n.uop_end = uint32_t(field<DWGEMM_UOP_END_LSB, DWGEMM_UOP_END_W>(i));
    n.iter_out = uint32_t(field<DWGEMM_ITER_OUT_LSB, DWGEMM_ITER_OUT_W>(i));
    n.iter_in = uint32_t(field<DWGEMM_ITER_IN_LSB, DWGEMM_ITER_IN_W>(i));
    n.dst_out = uint32_t(field<DWGEMM_DST_FACTOR_OUT_LSB, DWGEMM_DST_FACTOR_OUT_W>(i));
    n.dst_in = uint32_t(field<DWGEMM_DST_FACTOR_IN_LSB, DWGEMM_DST_FACTOR_IN_W>(i));
    n.src_out = uint32_t(field<DWGEMM_SRC_FACTOR_OUT_LSB, DWGEMM_SRC_FACTOR_OUT_W>(i));
    n.src_in = uint32_t(field<DWGEMM_SRC_FACTOR_IN_LSB, DWGEMM_SRC_FACTOR_IN_W>(i));
    n.wgt_out = uint32_t(field<DWGEMM_WGT_FACTOR_OUT_LSB, DWGEMM_WGT_FACTOR_OUT_W>(i));
    // No wgt_in: every input of a run meets the same weight entry (wgt_in stays 0).
    n.taps = uint32_t(field<DWGEMM_TAPS_LSB, DWGEMM_TAPS_W>(i));
    n.stride = uint32_t(field<DWGEMM_STRIDE_LSB, DWGEMM_STRIDE_W>(i));
    // lane_block is encoded only where BLOCK_IN exceeds BLOCK_OUT.
    constexpr unsigned kLaneBlockBits = DWGEMM_LANE_BLOCK_BITS > 0 ? DWGEMM_LANE_BLOCK_BITS : 1;
    n.lane_block = DWGEMM_LANE_BLOCK_BITS > 0 ? uint32_t(field<DWGEMM_LANE_BLOCK_BIT, kLaneBlockBits>(i)) : 0;
    n.requant = GEMM_REQUANT != 0 && field<DWGEMM_REQUANT_BIT, 1>(i) != 0;
  } else if (op == OPCODE_GEMM) {
    n.reset = field<GEMM_RESET_LSB, GEMM_RESET_W>(i) != 0;
    n.uop_begin = uint32_t(field<GEMM_UOP_BEGIN_LSB, GEMM_UOP_BEGIN_W>(i));
    n.uop_end = uint32_t(field<GEMM_UOP_END_LSB, GEMM_UOP_END_W>(i));
    n.iter_out = uint32_t(field<GEMM_ITER_OUT_LSB, GEMM_ITER_OUT_W>(i));
    n.iter_in = uint32_t(field<GEMM_ITER_IN_LSB, GEMM_ITER_IN_W>(i));
    n.dst_out = uint32_t(field<GEMM_DST_FACTOR_OUT_LSB, GEMM_DST_FACTOR_OUT_W>(i));
    n.dst_in = uint32_t(field<GEMM_DST_FACTOR_IN_LSB, GEMM_DST_FACTOR_IN_W>(i));
    n.src_out = uint32_t(field<GEMM_SRC_FACTOR_OUT_LSB, GEMM_SRC_FACTOR_OUT_W>(i));
    n.src_in = uint32_t(field<GEMM_SRC_FACTOR_IN_LSB, GEMM_SRC_FACTOR_IN_W>(i));
    n.wgt_out = uint32_t(field<GEMM_WGT_FACTOR_OUT_LSB, GEMM_WGT_FACTOR_OUT_W>(i));
    n.wgt_in = uint32_t(field<GEMM_WGT_FACTOR_IN_LSB, GEMM_WGT_FACTOR_IN_W>(i));
    n.requant = GEMM_REQUANT != 0 && field<GEMM_REQUANT_BIT, 1>(i) != 0;
  } else {
    n.is_alu = true;
    n.alu_op = unsigned(field<ALU_ALU_OP_LSB, ALU_ALU_OP_W>(i));
    n.use_imm = field<ALU_USE_IMM_LSB, ALU_USE_IMM_W>(i) != 0;
    n.uop_begin = uint32_t(field<ALU_UOP_BEGIN_LSB, ALU_UOP_BEGIN_W>(i));
    n.uop_end = uint32_t(field<ALU_UOP_END_LSB, ALU_UOP_END_W>(i));
    n.iter_out = uint32_t(field<ALU_ITER_OUT_LSB, ALU_ITER_OUT_W>(i));
    n.iter_in = uint32_t(field<ALU_ITER_IN_LSB, ALU_ITER_IN_W>(i));
    n.dst_out = uint32_t(field<ALU_DST_FACTOR_OUT_LSB, ALU_DST_FACTOR_OUT_W>(i));
    n.dst_in = uint32_t(field<ALU_DST_FACTOR_IN_LSB, ALU_DST_FACTOR_IN_W>(i));
    n.src_out = uint32_t(field<ALU_SRC_FACTOR_OUT_LSB, ALU_SRC_FACTOR_OUT_W>(i));
    n.src_in = uint32_t(field<ALU_SRC_FACTOR_IN_LSB, ALU_SRC_FACTOR_IN_W>(i));
    n.imm = int32_t(signed_field<ALU_IMM_LSB, ALU_IMM_W>(i));
    n.bias_clear = ALU_BIAS_CLEAR != 0 && field<ALU_BIAS_CLEAR_BIT, 1>(i) != 0;
  }
  return n;
}

// Micro-op fields, packed dst | src | wgt from bit 0.
inline uint32_t uop_dst(uint32_t u) { return u & ((1u << UOP_DST_BITS) - 1); }
inline uint32_t uop_src(uint32_t u) { return (u >> UOP_DST_BITS) & ((1u << UOP_SRC_BITS) - 1); }
inline uint32_t uop_wgt(uint32_t u) { return (u >> (UOP_DST_BITS + UOP_SRC_BITS)) & ((1u << UOP_WGT_BITS) - 1); }

// The requantisation state that SETREQ sets (extension gemm_requant) and
// requantising GEMMs read. Its initial value is the state after reset: REQ
// with a zero operand, bias and imm (initialised explicitly: the vendor's
// ap_uint does not zero itself). The entries are words (registers, no RAM
// to partition); lane el is bits [32 el + 31, 32 el].
struct ReqState {
  bool freq = false;  // the op: FREQ, else REQ (SETREQ allows no other)
  int32_t imm = 0;
  ap_uint<ACC_ENTRY_BITS> operand = 0, bias = 0;
};

// ---------------------------------------------------------------- tokens
// An instruction may start when every token it pops is there and every queue
// it pushes to has room. The ports name the queues the module pops from /
// pushes to on its prev and next side (-1: no such neighbour; fetch refuses
// flags that name one).
struct TokenPorts {
  int pop_prev, pop_next, push_prev, push_next;
};

inline uint8_t token_wait(const Flags& f, const TokenPorts& p, const TokenCounts& t) {
  if (f.pop_prev && p.pop_prev >= 0 && t.count[p.pop_prev] == 0) return ST_WAIT_TOKEN;
  if (f.pop_next && p.pop_next >= 0 && t.count[p.pop_next] == 0) return ST_WAIT_TOKEN;
  if (f.push_prev && p.push_prev >= 0 && t.count[p.push_prev] >= uint32_t(TOKEN_QUEUE_DEPTH)) return ST_WAIT_ROOM;
  if (f.push_next && p.push_next >= 0 && t.count[p.push_next] >= uint32_t(TOKEN_QUEUE_DEPTH)) return ST_WAIT_ROOM;
  return ST_BUSY;
}
inline void token_pop(const Flags& f, const TokenPorts& p, TokenCounts& t) {
  if (f.pop_prev && p.pop_prev >= 0) t.count[p.pop_prev]--;
  if (f.pop_next && p.pop_next >= 0) t.count[p.pop_next]--;
}
inline void token_push(const Flags& f, const TokenPorts& p, TokenCounts& t) {
  if (f.push_prev && p.push_prev >= 0) t.count[p.push_prev]++;
  if (f.push_next && p.push_next >= 0) t.count[p.push_next]++;
}

inline StepResult step_result(uint8_t state) {
  StepResult r = {};
  r.state = state;
  return r;
}
inline StepResult step_error(uint8_t code, uint32_t index, uint32_t info) {
  StepResult r = step_result(ST_BUSY);
  r.error = code;
  r.error_index = index;
  r.error_info = info;
  return r;
}

// ---------------------------------------------------------------- modules
// Fetch: reads the next instruction, checks it and dispatches it to the
// command queue of its module (queue index: 0 load, 1 compute, 2 store).
struct FetchRegs {
  uint64_t insn_word;  // INSN_ADDR / 16
  uint32_t count, next;
  bool pending_valid;
  Command pending;
  uint8_t pending_queue;
};
StepResult fetch_step(FetchRegs& r, const DramPorts& dram, hls::stream<Command> queues[3], const uint32_t occupancy[3]);

StepResult load_step(ModuleRegs& r, hls::stream<Command>& queue, TokenCounts& tokens, const DramPorts& dram,
                     inp_mem_t inp, wgt_mem_t wgt);
StepResult compute_step(ModuleRegs& r, ReqState& req, hls::stream<Command>& queue, TokenCounts& tokens,
                        const DramPorts& dram, uop_mem_t uop, const inp_mem_t inp, const wgt_mem_t wgt, acc_mem_t acc,
                        out_mem_t out);
StepResult store_step(ModuleRegs& r, hls::stream<Command>& queue, TokenCounts& tokens, const DramPorts& dram,
                      const out_mem_t out, inp_mem_t inp);

}  // namespace VDLA_HLS_NS
