#pragma once
// The RTL's status encodings and control register map, mirrored from
// vdla_hw/rtl/vdla_status_pkg.sv and vdla_ctrl_regs.sv (docs/hardware.md).
// tests/simulator/cycle/rtl_status_test.cpp checks that the two agree.
#include <cstdint>

namespace vdla::sim::rtl {

enum Reg : uint32_t {
  kCtrl = 0x000,  // W: bit0 start. R: bit0 running, bit1 done, bit2 error
  kInsnAddr = 0x004,
  kInsnAddrHi = 0x008,
  kInsnCount = 0x00c,
  kHashLo = 0x010,
  kHashHi = 0x014,
  kErrorCode = 0x018,  // [7:0] code, [9:8] module (0 fetch, 1 load, 2 compute, 3 store)
  kErrorIndex = 0x01c,
  kErrorInfo = 0x020,
  kModuleState = 0x024,  // 4 bits each: fetch, load, compute, store
  kFetchIndex = 0x028,   // then load, compute, store (+4 each)
  kTokens = 0x038,       // 8 bits each: l->c, c->l, c->s, s->c
  kQueues = 0x03c,       // [2:0] full (load, compute, store), [6:4] empty
  kClockKhz = 0x040,
  kCounters = 0x100,  // 64-bit counters, 8 bytes apart (see Counter)
};

enum Counter : uint32_t {
  kCntCycles = 0,
  kCntFetchBusy, kCntFetchWaitDram, kCntFetchWaitQueue,
  kCntLoadBusy, kCntLoadWaitToken, kCntLoadWaitRoom, kCntLoadWaitDram,
  kCntComputeBusy, kCntComputeWaitToken, kCntComputeWaitRoom, kCntComputeWaitDram,
  kCntStoreBusy, kCntStoreWaitToken, kCntStoreWaitRoom, kCntStoreWaitDram,
  kCntGemmUops, kCntAluVectors,
  kNumCounters,
};

enum ErrorCode : uint32_t {
  kNone = 0, kOpcode, kMemory, kAluOp, kStrayBits, kImm, kFlags, kPad, kFinishNotLast, kNoFinish, kEmpty,
  kSramRange, kUopRange, kDstRange, kSrcRange, kWgtRange, kAxiRead, kAxiWrite, kAddrOverflow, kTokensLeft,
};

enum State : uint32_t {
  kIdle = 0, kWaitToken = 1, kWaitRoom = 2, kBusy = 3, kDecode = 4,
  kFetchWaitDram = 5, kFetchWaitQueue = 6, kFetchDone = 7,
};

const char* stateName(uint32_t state);

}  // namespace vdla::sim::rtl
