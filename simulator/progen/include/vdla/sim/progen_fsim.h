#pragma once
// Runs a generated program on fsim directly (no Device): allocates its buffers
// in a simulated DRAM, relocates and encodes the instructions, runs them
// through the fetch path and reads every buffer back.
#include <cstdint>
#include <vector>

#include "vdla/sim/execution_stats.h"
#include "vdla/sim/fsim.h"
#include "vdla/sim/progen.h"

namespace vdla::sim::progen {

struct FsimRun {
  std::vector<std::vector<uint8_t>> buffers;  // final contents, RandomProgram::buffers order
  ExecutionStats stats;
};

// Uses `fsim` and its `dram` (so that on-chip state carries over between
// programs, as on a device); buffers are released afterwards. Throws
// vdla::Error with fsim's message if the run fails.
FsimRun runOnFsim(FunctionalSimulator& fsim, Dram& dram, const RandomProgram& program);

}  // namespace vdla::sim::progen
