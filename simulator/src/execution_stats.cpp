#include "vdla/sim/execution_stats.h"

#include <nlohmann/json.hpp>

#include "vdla/hw/registers.h"

namespace vdla::sim {

uint64_t ExecutionStats::totalInstructions() const {
  uint64_t total = 0;
  for (uint64_t c : instructions) total += c;
  return total;
}

ExecutionStats::CycleCounters cycleCountersFromRegisters(const std::function<uint64_t(uint32_t index)>& counter) {
  namespace regs = hw::regs;
  auto module = [&](uint32_t busy, uint32_t token, uint32_t room, uint32_t dram) {
    ExecutionStats::ModuleCycles m;
    m.busy = counter(busy);
    m.wait_token = token == ~0u ? 0 : counter(token);
    m.wait_room = counter(room);
    m.wait_dram = counter(dram);
    return m;
  };
  ExecutionStats::CycleCounters c;
  // Fetch waits for a command-queue slot where the others wait for token-queue room.
  c.fetch = module(regs::kCntFetchBusy, ~0u, regs::kCntFetchWaitQueue, regs::kCntFetchWaitDram);
  c.load = module(regs::kCntLoadBusy, regs::kCntLoadWaitToken, regs::kCntLoadWaitRoom, regs::kCntLoadWaitDram);
  c.compute =
      module(regs::kCntComputeBusy, regs::kCntComputeWaitToken, regs::kCntComputeWaitRoom, regs::kCntComputeWaitDram);
  c.store = module(regs::kCntStoreBusy, regs::kCntStoreWaitToken, regs::kCntStoreWaitRoom, regs::kCntStoreWaitDram);
  c.gemm_uop_cycles = counter(regs::kCntGemmUops);
  c.alu_cycles = counter(regs::kCntAluVectors);
  return c;
}

double ExecutionStats::gemmUtilisation() const {
  if (!has_cycle_counters || cycles == 0) return 0;
  return double(cycle_counters.gemm_uop_cycles) / double(cycles);
}

std::string ExecutionStats::toJson(int indent) const {
  nlohmann::json j;
  for (int op = 0; op < hw::kNumOpcodes; ++op) j["instructions"][hw::opcodeName(hw::Opcode(op))] = instructions[op];
  j["instructions"]["total"] = totalInstructions();
  for (int m = 0; m < hw::kNumMemoryIds; ++m) {
    if (m == int(hw::Memory::Output)) continue;
    j["loads"][hw::memoryName(hw::Memory(m))] = loads_by_memory[m];
    j["dram_bytes_read"][hw::memoryName(hw::Memory(m))] = dram_bytes_read[m];
  }
  j["dram_bytes_written"]["OUT"] = dram_bytes_written;
  j["padding_entries"] = padding_entries;
  j["gemm_macs"] = gemm_macs;
  j["gemm_uop_iterations"] = gemm_uop_iterations;
  j["alu_element_ops"] = alu_element_ops;
  for (int q = 0; q < 4; ++q) j["tokens_pushed"][tokenQueueName(TokenQueue(q))] = tokens_pushed[q];
  if (cycles) j["cycles"] = cycles;
  if (has_cycle_counters) {
    auto module = [](const ModuleCycles& m) {
      return nlohmann::json{
          {"busy", m.busy}, {"wait_token", m.wait_token}, {"wait_room", m.wait_room}, {"wait_dram", m.wait_dram}};
    };
    const CycleCounters& c = cycle_counters;
    j["cycle_counters"] = {{"fetch", module(c.fetch)},
                           {"load", module(c.load)},
                           {"compute", module(c.compute)},
                           {"store", module(c.store)},
                           {"gemm_uop_cycles", c.gemm_uop_cycles},
                           {"alu_cycles", c.alu_cycles}};
    j["gemm_utilisation"] = gemmUtilisation();
  }
  return j.dump(indent);
}

}  // namespace vdla::sim
