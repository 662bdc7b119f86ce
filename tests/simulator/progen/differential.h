#pragma once
// Differential testing of Devices on random programs (see vdla/sim/progen.h):
// the same program and DRAM image run on two devices must leave every buffer
// bit-identical. A mismatch report names the seed, the first differing
// buffer/byte, the instruction that last wrote it and lists the program, so
// that it can be reproduced with generateProgram(config, seed, options).
//
// Lives with the tests rather than in simulator/progen because it uses the
// driver (simulator/ must not). Tests of other backends (tests/simulator/cycle)
// link the target vdla_progen_harness.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "vdla/driver/device.h"
#include "vdla/sim/progen.h"

namespace vdla::progentest {

struct DeviceRun {
  driver::RunResult result;
  std::vector<std::vector<uint8_t>> buffers;  // final contents, RandomProgram::buffers order (empty if the run failed)
};

// Allocates the program's buffers on `device` in RandomProgram::buffers order
// (then the instruction stream), fills them, relocates, runs, reads every
// buffer back and releases them.
DeviceRun runOnDevice(driver::Device& device, const sim::progen::RandomProgram& program,
                      std::chrono::milliseconds timeout);

// "" if `a` and `b` are identical, otherwise the report.
std::string compareBuffers(const hw::HwConfig& cfg, const sim::progen::RandomProgram& program,
                           const std::string& name_a, const std::vector<std::vector<uint8_t>>& a,
                           const std::string& name_b, const std::vector<std::vector<uint8_t>>& b);

// Runs `program` on both devices; "" if both succeed with identical buffers,
// otherwise the report (a failed run is reported with its message).
std::string runDifferential(driver::Device& a, driver::Device& b, const sim::progen::RandomProgram& program,
                            std::chrono::milliseconds timeout = std::chrono::seconds(60));

}  // namespace vdla::progentest
