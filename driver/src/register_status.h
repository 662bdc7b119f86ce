#pragma once
// The register protocol shared by the backends that drive the accelerator's
// AXI-Lite registers (hls, zynq). Explains the accelerator's status registers (vdla/hw/registers.h) in the
// words fsim uses: the error of a stopped run, or what each module waits for
// when a run no longer progresses. Shared by the backends that drive the
// register interface (hls, and boards).
#include <cstdint>
#include <functional>
#include <string>

#include "vdla/hw/config.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::driver {

// Reads one 32-bit register at a byte offset.
using RegisterReader = std::function<uint32_t(uint32_t offset)>;
// Writes one 32-bit register at a byte offset.
using RegisterWriter = std::function<void(uint32_t offset, uint32_t value)>;
// Reads instruction `index` of the running program (16 bytes), false if it cannot.
using InstructionReader = std::function<bool(uint32_t index, uint8_t bytes[16])>;

// Compares the configuration hash registers with `cfg`; throws vdla::Error
// refusing a mismatched bitstream (and naming a missing one).
void checkConfigurationHash(const hw::HwConfig& cfg, const RegisterReader& reg);

// The start of a run on any register-driven accelerator: compares the
// configuration hash registers with `cfg` (a mismatched bitstream is refused),
// writes INSN_ADDR, INSN_ADDR_HI and INSN_COUNT and reads each back, then
// writes START. Throws vdla::Error with the reason.
void startThroughRegisters(const hw::HwConfig& cfg, const RegisterReader& reg, const RegisterWriter& write,
                           uint64_t insn_addr, uint32_t count);

// The message for a run that stopped with ERROR set.
std::string describeRegisterError(const hw::HwConfig& cfg, const RegisterReader& reg, const InstructionReader& insn);

// The statistics of a successful run: the GEMM micro-op and ALU vector
// counts from the accelerator's counters, the per-module cycle counters when
// the accelerator counts clock cycles (the RTL), instruction counts and MACs
// from the program text (`stream`, `count` instructions; null to skip them).
sim::ExecutionStats statsAfterRun(const hw::HwConfig& cfg, const RegisterReader& reg, const uint8_t* stream,
                                  uint32_t count);

// The message for a run in which no module can progress.
std::string describeDeadlock(const hw::HwConfig& cfg, const RegisterReader& reg, const InstructionReader& insn);

}  // namespace vdla::driver
