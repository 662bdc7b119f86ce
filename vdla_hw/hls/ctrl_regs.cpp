// The AXI-Lite register file: the same map and semantics as the RTL's
// vdla_ctrl_regs.sv (docs/hardware.md). START is ignored while running; a
// START clears DONE, ERROR, the error registers and the counters.
#include "vdla_top.h"

namespace VDLA_HLS_NS {

uint32_t axil_read(const RegFile& r, uint32_t offset) {
  if (offset >= regs::kCounters && offset < regs::kCounters + 8 * regs::kNumCounters) {
    const uint64_t v = r.counters[(offset - regs::kCounters) / 8];
    return (offset & 4) ? uint32_t(v >> 32) : uint32_t(v);
  }
  switch (offset) {
    case regs::kCtrl:
      return (r.running ? regs::kCtrlRunning : 0u) | (r.done ? regs::kCtrlDone : 0u) |
             (r.error ? regs::kCtrlError : 0u);
    case regs::kInsnAddr: return r.insn_addr;
    case regs::kInsnAddrHi: return r.insn_addr_hi;
    case regs::kInsnCount: return r.insn_count;
    case regs::kHashLo: return uint32_t(CONFIG_HASH);
    case regs::kHashHi: return uint32_t(CONFIG_HASH >> 32);
    case regs::kErrorCode: return r.error_code;
    case regs::kErrorIndex: return r.error_index;
    case regs::kErrorInfo: return r.error_info;
    case regs::kModuleState: return r.module_state;
    case regs::kFetchIndex: return r.index[0];
    case regs::kLoadIndex: return r.index[1];
    case regs::kComputeIndex: return r.index[2];
    case regs::kStoreIndex: return r.index[3];
    case regs::kTokens: return r.tokens;
    case regs::kQueues: return r.queues;
    case regs::kClockKhz: return uint32_t(CLOCK_KHZ);
    default: return regs::kUnmappedRead;
  }
}

void axil_write(RegFile& r, uint32_t offset, uint32_t value) {
  if (r.running) return;  // the RTL latches address and count only while idle
  switch (offset) {
    case regs::kCtrl:
      if (value & regs::kCtrlStart) {
        r.start_pending = true;
        r.running = true;
        r.done = r.error = false;
        r.error_code = r.error_index = r.error_info = 0;
      CLEAR:
        for (uint32_t i = 0; i < regs::kNumCounters; ++i) r.counters[i] = 0;
      }
      break;
    case regs::kInsnAddr: r.insn_addr = value; break;
    case regs::kInsnAddrHi: r.insn_addr_hi = value; break;
    case regs::kInsnCount: r.insn_count = value; break;
    default: break;
  }
}

}  // namespace VDLA_HLS_NS
