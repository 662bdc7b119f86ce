#include "vdla/sim/execution_stats.h"

#include <nlohmann/json.hpp>

namespace vdla::sim {

uint64_t ExecutionStats::totalInstructions() const {
  uint64_t total = 0;
  for (uint64_t c : instructions) total += c;
  return total;
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
  return j.dump(indent);
}

}  // namespace vdla::sim
