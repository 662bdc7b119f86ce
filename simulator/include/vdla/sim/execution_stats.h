#pragma once
// What a run of a program did, as counted by any ISA implementation.
#include <cstdint>
#include <string>
#include <vector>

#include <functional>

#include "vdla/hw/isa.h"
#include "vdla/hw/token_ports.h"

namespace vdla::sim {

struct ExecutionStats {
  uint64_t instructions[hw::kNumOpcodes] = {};
  uint64_t loads_by_memory[hw::kNumMemoryIds] = {};
  uint64_t dram_bytes_read[hw::kNumMemoryIds] = {};  // by destination memory, padding excluded
  uint64_t dram_bytes_written = 0;                   // STORE OUT
  uint64_t padding_entries = 0;                      // SRAM entries zero-filled by loads
  uint64_t gemm_macs = 0;                            // multiply-accumulates (reset passes excluded)
  uint64_t gemm_uop_iterations = 0;                  // micro-op executions, reset passes included
  uint64_t alu_element_ops = 0;                      // one per accumulator element updated
  uint64_t tokens_pushed[hw::kNumTokenQueues] = {};  // by hw::TokenQueue
  // Filled by timing models only (0 for the functional simulator).
  uint64_t cycles = 0;
  // Hardware counters of the cycle-accurate simulator (absent for fsim).
  struct ModuleCycles {
    uint64_t busy = 0;        // executing an instruction (includes waiting for DRAM)
    uint64_t wait_token = 0;  // head instruction waits for a token to pop
    uint64_t wait_room = 0;   // waits for room: a token queue (or, for fetch, a command queue)
    uint64_t wait_dram = 0;   // executing but waiting for DRAM/AXI (subset of busy)
  };
  struct CycleCounters {
    ModuleCycles fetch, load, compute, store;
    uint64_t gemm_uop_cycles = 0;  // cycles in which the GEMM core consumed a micro-op
    uint64_t alu_cycles = 0;       // cycles in which the ALU processed a vector
  };
  bool has_cycle_counters = false;
  CycleCounters cycle_counters;
  // Module activity of the run, when the timing model was asked to record it
  // (an interval per stretch of one state on one instruction, idle omitted),
  // in cycles from the start of the run. (A layer's share of a program
  // chain's run counts from the start of its share: negative where its
  // instructions ran during the layer before.)
  struct ActivityInterval {
    uint8_t module = 0;  // 0 load, 1 compute, 2 store
    bool busy = false;   // executing, else waiting
    std::string what;    // "GEMM", "LOAD INP", or the wait: "wait: token", ...
    uint32_t instruction = 0;
    int64_t begin = 0, end = 0;
  };
  std::vector<ActivityInterval> activity;
  // gemm_uop_cycles / cycles (0 without cycle counters).
  double gemmUtilisation() const;

  uint64_t totalInstructions() const;
  std::string toJson(int indent = -1) const;
};

// The four dependency-token queues (vdla/hw/token_ports.h).
using hw::TokenQueue;
using hw::tokenQueueName;

// The per-module cycle counters of the accelerator's register interface
// (vdla/hw/registers.h), from a reader of counter i.
ExecutionStats::CycleCounters cycleCountersFromRegisters(const std::function<uint64_t(uint32_t index)>& counter);

}  // namespace vdla::sim
