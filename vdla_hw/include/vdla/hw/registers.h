#pragma once
// The accelerator's AXI-Lite register map and status encodings, as the RTL
// (vdla_hw/rtl/vdla_ctrl_regs.sv, vdla_status_pkg.sv) and the HLS C++
// (vdla_hw/hls) implement them and as every driver reads them
// (docs/hardware.md). Plain constants only, so that the HLS code can include
// it for synthesis too.
#include <stdint.h>

// Nested namespaces spelled out: the HLS tools compile this as C++14.
namespace vdla {
namespace hw {
namespace regs {

// Byte offsets of the 32-bit registers.
constexpr uint32_t kCtrl = 0x000;  // W: bit0 START. R: bit0 RUNNING, bit1 DONE, bit2 ERROR
constexpr uint32_t kInsnAddr = 0x004;
constexpr uint32_t kInsnAddrHi = 0x008;
constexpr uint32_t kInsnCount = 0x00c;
constexpr uint32_t kHashLo = 0x010;
constexpr uint32_t kHashHi = 0x014;
constexpr uint32_t kErrorCode = 0x018;    // [7:0] code, [9:8] module (0 fetch, 1 load, 2 compute, 3 store)
constexpr uint32_t kErrorIndex = 0x01c;
constexpr uint32_t kErrorInfo = 0x020;
constexpr uint32_t kModuleState = 0x024;  // 4 bits each: fetch [3:0], load, compute, store
constexpr uint32_t kFetchIndex = 0x028;   // then load, compute, store head (+4 each)
constexpr uint32_t kTokens = 0x038;       // 8 bits each: l->c, c->l, c->s, s->c
constexpr uint32_t kQueues = 0x03c;       // [2:0] command queue full (load, compute, store), [6:4] empty
constexpr uint32_t kClockKhz = 0x040;
constexpr uint32_t kCounters = 0x100;     // counter i: lo at kCounters + 8*i, hi at +4
constexpr uint32_t kNumCounters = 18;
constexpr uint32_t kSpanBytes = kCounters + 8 * kNumCounters;  // size of the register window in use

constexpr uint32_t kCtrlStart = 1u << 0;
constexpr uint32_t kCtrlRunning = 1u << 0;
constexpr uint32_t kCtrlDone = 1u << 1;
constexpr uint32_t kCtrlError = 1u << 2;

// Counter indices.
constexpr uint32_t kCntCycles = 0;
constexpr uint32_t kCntGemmUops = 16;
constexpr uint32_t kCntAluVectors = 17;

// ERROR_CODE[7:0].
constexpr uint32_t kErrOpcode = 1, kErrMemory = 2, kErrAluOp = 3, kErrStrayBits = 4, kErrImm = 5, kErrFlags = 6,
                   kErrPad = 7, kErrFinishNotLast = 8, kErrNoFinish = 9, kErrEmpty = 10, kErrSramRange = 11,
                   kErrUopRange = 12, kErrDstRange = 13, kErrSrcRange = 14, kErrWgtRange = 15, kErrAxiRead = 16,
                   kErrAxiWrite = 17, kErrAddrOverflow = 18, kErrTokensLeft = 19;

// MODULE_STATE nibbles.
constexpr uint32_t kStIdle = 0, kStWaitToken = 1, kStWaitRoom = 2, kStBusy = 3, kStDecode = 4, kStFetchWaitDram = 5,
                   kStFetchWaitQueue = 6, kStFetchDone = 7;

}  // namespace regs
}  // namespace hw
}  // namespace vdla
