#pragma once
// Turns the accelerator's status registers into messages: what an error code
// means for the instruction it names, and -- when a run stops at the cycle
// limit or deadlocks -- what each module waits for.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::sim {

// The program as fetch will see it; an instruction that does not decode is
// empty (the hardware reports why).
struct ProgramView {
  std::vector<std::optional<hw::Instruction>> insns;
  std::string describe(uint32_t index) const;  // "instruction 3 (GEMM, compute module)"
  std::string name(uint32_t index) const;      // "GEMM", "LOAD INP", "ALU ADD"
};

struct StatusSnapshot {
  uint32_t module_state = 0;  // 4 bits each: fetch, load, compute, store
  uint32_t index[4] = {};     // fetch (next to dispatch), load, compute, store
  uint32_t tokens = 0;        // 8 bits each
  uint32_t queues = 0;
  uint32_t state(int m) const { return (module_state >> (4 * m)) & 0xf; }
  bool operator==(const StatusSnapshot& o) const;
};

// True if no module can make progress: every module is idle or waits for a
// token or queue room, and fetch is done or waits for a command-queue slot.
bool isDeadlocked(const StatusSnapshot& s);
// "load module waits at instruction 3 (...) for a token in the empty
// compute->load queue; compute module is idle; ...".
std::string describeWaits(const StatusSnapshot& s, const ProgramView& program, uint32_t count,
                          const hw::HwConfig& cfg);
std::string describeError(uint32_t code_reg, uint32_t index, uint32_t info, const ProgramView& program,
                          const hw::HwConfig& cfg, const std::string& axi_error);

}  // namespace vdla::sim
