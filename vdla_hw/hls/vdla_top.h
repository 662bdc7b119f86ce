#pragma once
// The accelerator around the four modules: the AXI-Lite register file (the
// RTL's register map, vdla/hw/registers.h) and the scheduler that steps fetch,
// load, compute and store in turn. The synthesis top (vdla_top.cpp) and the
// C-simulation harness (csim/) both drive it through top_step().
#include "vdla_hls.h"

namespace VDLA_HLS_NS {

struct RegFile {
  bool running, done, error, start_pending;
  uint32_t insn_addr, insn_addr_hi, insn_count;
  uint32_t error_code, error_index, error_info;
  uint32_t module_state, index[4], tokens, queues;
  uint64_t counters[regs::kNumCounters];
};

// One AXI-Lite access. Reads of unmapped offsets return 0; writes to
// read-only registers are ignored, as in the RTL.
uint32_t axil_read(const RegFile& r, uint32_t offset);
void axil_write(RegFile& r, uint32_t offset, uint32_t value);

// The scheduler's registers.
struct Control {
  FetchRegs fetch;
  ModuleRegs module[3];  // load, compute, store
  ReqState req;          // compute's SETREQ state: kept across runs, cleared by a reset (as in the RTL)
  TokenCounts tokens;
  uint32_t occupancy[3];  // commands in each queue, the head included
  bool finished;          // FINISH has executed
};

// One round: starts a run if START was written, then steps fetch, load,
// compute and store once each (stopping at the first error) and updates the
// status registers. Returns whether anything changed, so that a harness can
// tell a deadlock (a running accelerator that no longer changes) from work.
bool top_step(RegFile& regs, Control& c, hls::stream<Command> queues[3], const DramPorts& dram, uop_mem_t uop,
              inp_mem_t inp, wgt_mem_t wgt, acc_mem_t acc, out_mem_t out);

}  // namespace VDLA_HLS_NS
