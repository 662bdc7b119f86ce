#pragma once
// The counts of ExecutionStats that follow from the program text alone
// (instructions, bytes moved, padding, micro-op iterations), so that the cycle
// simulator reports the same figures as fsim next to its cycle counters, and
// a program chain's run can be split into its layers' shares.
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::sim {

ExecutionStats programStats(const hw::HwConfig& cfg, const std::vector<hw::Instruction>& program);

}  // namespace vdla::sim
