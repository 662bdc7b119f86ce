// The scheduler around the four modules, and the synthesis top.
//
// top_step() is one round: fetch, load, compute and store each take one step.
// A module step executes the head of its command queue when every token it
// pops is there and every queue it pushes to has room, so the set of legal
// interleavings is exactly fsim's; programs whose result depends only on
// their tokens (every valid program) give fsim's result bit for bit.
#include "vdla_top.h"

namespace VDLA_HLS_NS {
namespace {

void start_run(RegFile& regs, Control& c, hls::stream<Command> queues[3]) {
  regs.start_pending = false;
  c.fetch.insn_word = ((uint64_t(regs.insn_addr_hi) << 32) | regs.insn_addr) / (INSN_BITS / 8);
  c.fetch.count = regs.insn_count;
  c.fetch.next = 0;
  c.fetch.pending_valid = false;
  c.finished = false;
INIT:
  for (int m = 0; m < 3; ++m) {
    c.module[m].head_valid = false;
    c.occupancy[m] = 0;
  DRAIN:  // left over by a run that stopped with an error
    for (int i = 0; i < CMD_QUEUE_DEPTH; ++i)
      if (!queues[m].empty()) queues[m].read();
  }
  for (int q = 0; q < 4; ++q) c.tokens.count[q] = 0;
}

void stop_with_error(RegFile& regs, uint8_t module, const StepResult& r) {
  regs.running = false;
  regs.error = true;
  regs.error_code = uint32_t(r.error) | (uint32_t(module) << 8);
  regs.error_index = r.error_index;
  regs.error_info = r.error_info;
}

uint32_t pack_tokens(const TokenCounts& t) {
  return (t.count[TQ_L2C] & 0xff) | ((t.count[TQ_C2L] & 0xff) << 8) | ((t.count[TQ_C2S] & 0xff) << 16) |
         ((t.count[TQ_S2C] & 0xff) << 24);
}

#ifdef VDLA_HLS_CHECKED_DRAM
// The C simulation's DRAM ports throw on an access outside every buffer; the
// hardware would get an AXI error response, reported as such.
StepResult dram_fault(const vdla_hls_host::DramFault& f, uint32_t index) {
  return step_error(f.write ? ERR_AXI_WRITE : ERR_AXI_READ, index, uint32_t(f.addr));
}
#define VDLA_GUARDED(result, call, index)           \
  try {                                             \
    result = call;                                  \
  } catch (const vdla_hls_host::DramFault& fault) { \
    result = dram_fault(fault, index);              \
  }
#else
#define VDLA_GUARDED(result, call, index) result = call;
#endif

}  // namespace

bool top_step(RegFile& regs, Control& c, hls::stream<Command> queues[3], const DramPorts& dram, uop_mem_t uop,
              inp_mem_t inp, wgt_mem_t wgt, acc_mem_t acc, out_mem_t out) {
  if (regs.start_pending) {
    start_run(regs, c, queues);
    if (regs.insn_count == 0) {
      stop_with_error(regs, MOD_FETCH, step_error(ERR_COUNT_ZERO, 0, 0));
      return true;
    }
    if (regs.insn_addr_hi != 0) {
      stop_with_error(regs, MOD_FETCH, step_error(ERR_ADDR_OVERFLOW, 0, regs.insn_addr_hi));
      return true;
    }
  }
  if (!regs.running) return false;
  regs.counters[regs::kCntCycles]++;

  StepResult r[4] = {};
  VDLA_GUARDED(r[0], fetch_step(c.fetch, dram, queues, c.occupancy), c.fetch.next)
  if (r[0].error == ERR_NONE && r[0].completed) c.occupancy[c.fetch.pending_queue]++;
  if (r[0].error == ERR_NONE)
    VDLA_GUARDED(r[1], load_step(c.module[0], queues[0], c.tokens, dram, inp, wgt), c.module[0].head.index)
  if (r[0].error == ERR_NONE && r[1].error == ERR_NONE)
    VDLA_GUARDED(r[2], compute_step(c.module[1], c.req, queues[1], c.tokens, dram, uop, inp, wgt, acc, out),
                 c.module[1].head.index)
  if (r[0].error == ERR_NONE && r[1].error == ERR_NONE && r[2].error == ERR_NONE)
    VDLA_GUARDED(r[3], store_step(c.module[2], queues[2], c.tokens, dram, out, inp), c.module[2].head.index)

  bool progressed = false;
  uint32_t state = 0;
STATUS:
  for (int m = 0; m < 4; ++m) {
    if (r[m].error != ERR_NONE) {
      stop_with_error(regs, uint8_t(m), r[m]);
      return true;
    }
    progressed = progressed || r[m].progressed;
    state |= uint32_t(r[m].state & 0xf) << (4 * m);
    if (m > 0 && r[m].completed) c.occupancy[m - 1]--;
  }
  if (r[2].finish) c.finished = true;
  regs.counters[regs::kCntGemmUops] += r[2].gemm_uops;
  regs.counters[regs::kCntAluVectors] += r[2].alu_vectors;
  regs.module_state = state;
  regs.index[0] = c.fetch.next;
  regs.queues = 0;
  for (int m = 0; m < 3; ++m) {
    regs.index[m + 1] = c.module[m].head.index;
    if (c.occupancy[m] >= uint32_t(CMD_QUEUE_DEPTH)) regs.queues |= 1u << m;
    if (c.occupancy[m] == 0) regs.queues |= 1u << (m + 4);
  }
  regs.tokens = pack_tokens(c.tokens);

  const bool drained = c.occupancy[0] == 0 && c.occupancy[1] == 0 && c.occupancy[2] == 0;
  if (c.finished && drained) {
    regs.running = false;
    if (regs.tokens != 0) {
      stop_with_error(regs, MOD_COMPUTE, step_error(ERR_TOKENS_LEFT, c.fetch.count - 1, regs.tokens));
    } else {
      regs.done = true;
    }
    return true;
  }
  return progressed;
}

}  // namespace VDLA_HLS_NS

#ifndef VDLA_HLS_CHECKED_DRAM
// The synthesis top. A free-running block (ap_ctrl_none): every invocation
// copies the host's writes out of the AXI-Lite window, runs a bounded number
// of scheduling rounds and writes the status registers back, so the host sees
// the register map of docs/hardware.md at the window's base offset
// (scripts/hw/hls.tcl checks that Vitis placed the window at offset 0).
// Vitis HLS wants its top at global scope.
namespace {
using namespace VDLA_HLS_NS;
constexpr int kWindowWords = regs::kSpanBytes / 4;
constexpr int kRoundsPerCall = 4096;
}  // namespace

void vdla_top(uint32_t window[kWindowWords], ap_uint<INSN_BITS>* insn, ap_uint<UOP_BITS>* uop_dram,
              ap_uint<INP_WORD_BITS>* inp_dram, ap_uint<WGT_WORD_BITS>* wgt_dram, ap_uint<ACC_WORD_BITS>* acc_dram,
              ap_uint<ACC8_WORD_BITS>* acc8_dram, ap_uint<OUT_WORD_BITS>* out_dram) {
#pragma HLS interface mode = ap_ctrl_none port = return
#pragma HLS interface mode = s_axilite port = window bundle = control
#pragma HLS interface mode = m_axi port = insn offset = off bundle = data max_read_burst_length = 8
#pragma HLS interface mode = m_axi port = uop_dram offset = off bundle = data
#pragma HLS interface mode = m_axi port = inp_dram offset = off bundle = data
#pragma HLS interface mode = m_axi port = wgt_dram offset = off bundle = data
#pragma HLS interface mode = m_axi port = acc_dram offset = off bundle = data
#pragma HLS interface mode = m_axi port = acc8_dram offset = off bundle = data
#pragma HLS interface mode = m_axi port = out_dram offset = off bundle = data max_write_burst_length = 32
  static RegFile regs;
  static Control c;
  static hls::stream<Command> queues[3];
#pragma HLS stream variable = queues depth = CMD_QUEUE_DEPTH
  static uop_mem_t uop;
  static inp_mem_t inp;
#pragma HLS array_partition variable = inp complete dim = 2
#pragma HLS array_partition variable = inp complete dim = 3
  static wgt_mem_t wgt;
#pragma HLS array_partition variable = wgt complete dim = 2
#pragma HLS array_partition variable = wgt complete dim = 3
  static acc_mem_t acc;
#pragma HLS array_partition variable = acc complete dim = 2
#pragma HLS array_partition variable = acc complete dim = 3
  static out_mem_t out;
#pragma HLS array_partition variable = out complete dim = 2
#pragma HLS array_partition variable = out complete dim = 3

  // The window is one RAM written by both sides. The host owns INSN_ADDR,
  // INSN_ADDR_HI and INSN_COUNT and writes START into CTRL while idle; this
  // side writes CTRL only when its status changes (acknowledging START with
  // RUNNING, then DONE or ERROR), so a START written between our read and a
  // write-back of an unchanged status cannot be lost. (Every START is
  // answered by a write of CTRL, which clears the START bit the host set.)
  static uint32_t ctrl_written = 0;
  bool started = false;
  if (!regs.running && (window[regs::kCtrl / 4] & regs::kCtrlStart)) {
    started = true;
    axil_write(regs, regs::kInsnAddr, window[regs::kInsnAddr / 4]);
    axil_write(regs, regs::kInsnAddrHi, window[regs::kInsnAddrHi / 4]);
    axil_write(regs, regs::kInsnCount, window[regs::kInsnCount / 4]);
    axil_write(regs, regs::kCtrl, regs::kCtrlStart);
  }
  const DramPorts dram = {insn, uop_dram, inp_dram, wgt_dram, acc_dram, acc8_dram, out_dram};
ROUNDS:
  for (int round = 0; round < kRoundsPerCall; ++round) {
    if (!top_step(regs, c, queues, dram, uop, inp, wgt, acc, out)) break;
  }
WRITE_BACK:
  for (int w = 1; w < kWindowWords; ++w) {
    const uint32_t offset = uint32_t(w) * 4;
    const bool host_owned = offset == regs::kInsnAddr || offset == regs::kInsnAddrHi || offset == regs::kInsnCount;
    if (!host_owned) window[w] = axil_read(regs, offset);
  }
  const uint32_t ctrl = axil_read(regs, regs::kCtrl);
  if (ctrl != ctrl_written || started) {  // a run may start and end in one call
    window[regs::kCtrl / 4] = ctrl;
    ctrl_written = ctrl;
  }
}
#endif
