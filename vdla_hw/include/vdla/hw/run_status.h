#pragma once
// The one decoder of the accelerator's status registers (vdla/hw/registers.h)
// for every backend that reads them (the cycle-accurate simulator, the HLS C
// simulation, boards): what an error code means for the instruction it names,
// whether a stalled run is deadlocked, and what each module waits for.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::hw {

// Instruction `index` of the running program as the hardware will see it;
// empty when it cannot be read or does not decode (the hardware reports why).
using InstructionLookup = std::function<std::optional<Instruction>(uint32_t index)>;

// "GEMM", "LOAD INP", "ALU ADD".
std::string instructionName(const Instruction& insn);
// "instruction 3 (LOAD INP, load module)", or "instruction 3" when it cannot
// be looked up.
std::string describeInstruction(const InstructionLookup& program, uint32_t index);

// The live status registers.
struct StatusSnapshot {
  uint32_t module_state = 0;  // MODULE_STATE: 4 bits each, fetch, load, compute, store
  uint32_t index[4] = {};     // FETCH_INDEX (next to dispatch), LOAD/COMPUTE/STORE_INDEX (heads)
  uint32_t tokens = 0;        // TOKENS: one byte per queue
  uint32_t queues = 0;        // QUEUES
  uint32_t state(int m) const { return (module_state >> (4 * m)) & 0xf; }
  bool operator==(const StatusSnapshot& o) const;
};
// Reads the snapshot through a register reader (byte offset -> value).
StatusSnapshot readStatus(const std::function<uint32_t(uint32_t offset)>& reg);

// True if no module can make progress: every module is idle or waits for a
// token or queue room, and fetch is done or waits for a command-queue slot
// (everything idle with fetch done is the end of a run, not a deadlock).
bool isDeadlocked(const StatusSnapshot& s);

// "load module waits at instruction 3 (...) for a token in the empty
// compute->load queue; compute module is idle; ...". `count`: instructions in
// the program.
std::string describeWaits(const StatusSnapshot& s, const InstructionLookup& program, uint32_t count,
                          const HwConfig& cfg);

// The message for a run that stopped with ERROR set, from ERROR_CODE,
// ERROR_INDEX and ERROR_INFO. `axi_detail`, when not empty, replaces the
// generic words of an AXI response error (a simulator knows which buffer).
std::string describeRunError(uint32_t code_reg, uint32_t index, uint32_t info, uint32_t count,
                             const InstructionLookup& program, const HwConfig& cfg, const std::string& axi_detail = "");

}  // namespace vdla::hw
