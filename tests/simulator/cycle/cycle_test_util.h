#pragma once
// Differential rig for the cycle-accurate device: the same buffers, data and
// program on fsim (the golden model) and on the cycle device, compared byte
// for byte afterwards. Both devices allocate in the same order from identical
// simulated DRAMs, so a program's physical addresses are valid on both.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "vdla/driver/device.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"

namespace vdla::cycletest {

using hw::AluOp;
using hw::Instruction;
using hw::Memory;
using hw::Uop;

struct DualRig {
  hw::HwConfig cfg;
  hw::IsaLayout layout;
  std::unique_ptr<driver::Device> fsim, cycle;
  std::vector<driver::Buffer> buffers;  // same addresses on both
  std::mt19937_64 rng{12345};

  explicit DualRig(const std::string& config, const driver::DeviceOptions& options = {})
      : cfg(hw::loadConfig(config)),
        layout(cfg),
        fsim(driver::createDevice("fsim", cfg)),
        cycle(driver::createDevice("cycle", cfg, options)) {}

  // A buffer holding `bytes` (random unless `data` is given) on both devices.
  uint64_t buffer(size_t bytes, const std::vector<uint8_t>* data = nullptr) {
    driver::Buffer a = fsim->allocate(bytes), b = cycle->allocate(bytes);
    EXPECT_EQ(a.phys_addr, b.phys_addr);
    std::vector<uint8_t> init(bytes);
    if (data)
      init = *data;
    else
      for (auto& v : init) v = uint8_t(rng());
    fsim->write(a, 0, init.data(), bytes);
    cycle->write(b, 0, init.data(), bytes);
    buffers.push_back(a);
    return a.phys_addr;
  }
  uint64_t uops(const std::vector<Uop>& u) {
    std::vector<uint8_t> bytes = hw::encodeMicroOps(layout, u);
    return buffer(bytes.size(), &bytes);
  }
  uint64_t entryOf(uint64_t addr, Memory m) const { return addr / cfg.entryBytes(m); }

  struct Outcome {
    driver::RunResult fsim, cycle;
  };
  // Runs the program on both and checks that they agree: same success, and
  // every buffer identical after the run.
  // `same_status` is false where only the cycle device can fail (cycle limit).
  Outcome run(const std::vector<Instruction>& program, bool same_status = true) {
    std::vector<uint8_t> stream = hw::encodeInstructionStream(layout, program);
    return runRaw(stream, uint32_t(program.size()), same_status);
  }
  Outcome runRaw(const std::vector<uint8_t>& stream, uint32_t count, bool same_status = true) {
    uint64_t insns = buffer(stream.size(), &stream);
    Outcome o;
    o.fsim = fsim->run(insns, count, std::chrono::seconds(60));
    o.cycle = cycle->run(insns, count, std::chrono::seconds(120));
    if (same_status) {
      EXPECT_EQ(o.fsim.ok(), o.cycle.ok()) << "fsim: " << o.fsim.message << "\ncycle: " << o.cycle.message;
    }
    if (o.fsim.ok() && o.cycle.ok()) {
      for (const auto& b : buffers) {
        std::vector<uint8_t> x(b.size), y(b.size);
        fsim->read(b, 0, x.data(), b.size);
        cycle->read(b, 0, y.data(), b.size);
        size_t first = 0;
        while (first < x.size() && x[first] == y[first]) ++first;
        EXPECT_EQ(first, x.size()) << "buffer at 0x" << std::hex << b.phys_addr << std::dec << " differs first at byte "
                                   << first;
      }
      EXPECT_EQ(o.cycle.stats.gemm_uop_iterations, o.fsim.stats.gemm_uop_iterations);
    }
    return o;
  }
};

}  // namespace vdla::cycletest
