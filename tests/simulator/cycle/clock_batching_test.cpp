// The clock process runs all cycles of one runCycles() call in a single
// SystemC activation (simulator/cycle/src/sc_harness.h). That must not change
// what the RTL does: a program stepped one cycle per activation and the same
// program stepped in large batches must end with the same hardware counters
// (every one of them, cycle for cycle) and the same DRAM bytes, which also
// match fsim; and stepping must advance the clock by exactly what was asked.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/hw/registers.h"
#include "vdla/sim/cycle_register_port.h"
#include "vdla/sim/fsim.h"
#include "vdla/sim/progen.h"
#include "vdla/sim/progen_fsim.h"

namespace vdla::sim {
namespace {

namespace regs = hw::regs;

struct PortRun {
  std::vector<uint64_t> counters;             // every hardware counter after DONE
  std::vector<std::vector<uint8_t>> buffers;  // the program's buffers afterwards
  uint64_t polls = 0;
};

// Places `program` in a fresh DRAM, starts it through the registers and
// advances the clock `step` cycles at a time, polling CTRL every
// `poll_every` steps, until DONE.
PortRun runThroughPort(const hw::HwConfig& cfg, const progen::RandomProgram& program, uint64_t step,
                       uint64_t poll_every) {
  Dram dram;
  std::vector<uint64_t> addrs;
  for (const progen::ProgramBuffer& b : program.buffers) {
    addrs.push_back(dram.allocate(b.init.size()));
    if (!b.init.empty()) std::memcpy(dram.map(addrs.back(), b.init.size()), b.init.data(), b.init.size());
  }
  const std::vector<uint8_t> stream =
      hw::encodeInstructionStream(hw::IsaLayout(cfg), progen::relocate(cfg, program, addrs));
  const uint64_t insn = dram.allocate(stream.size());
  std::memcpy(dram.map(insn, stream.size()), stream.data(), stream.size());

  CycleRegisterPort port(cfg, dram);
  port.write(regs::kInsnAddr, uint32_t(insn));
  port.write(regs::kInsnAddrHi, 0);
  port.write(regs::kInsnCount, uint32_t(program.instructions.size()));
  port.write(regs::kCtrl, regs::kCtrlStart);
  PortRun run;
  uint32_t ctrl = regs::kCtrlRunning;
  for (uint64_t i = 0; (ctrl & regs::kCtrlRunning) && run.polls < 100000; ++i) {
    port.step(step);
    if (i % poll_every == poll_every - 1) {
      ctrl = port.read(regs::kCtrl);
      ++run.polls;
    }
  }
  EXPECT_EQ(ctrl, regs::kCtrlDone) << "ERROR_CODE " << port.read(regs::kErrorCode);
  for (uint32_t c = 0; c < regs::kNumCounters; ++c)
    run.counters.push_back(port.read(regs::kCounters + 8 * c) |
                           (uint64_t(port.read(regs::kCounters + 8 * c + 4)) << 32));
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const uint8_t* p = dram.map(addrs[b], program.buffers[b].init.size());
    run.buffers.emplace_back(p, p + program.buffers[b].init.size());
  }
  return run;
}

class ClockBatching : public ::testing::TestWithParam<const char*> {};

TEST_P(ClockBatching, BatchedAndSingleCycleSteppingAgreeCycleForCycle) {
  const hw::HwConfig cfg = hw::loadConfig(GetParam());
  if (!cycleSimSupports(cfg)) GTEST_SKIP() << "no cycle-accurate model of " << cfg.name << " in this build";
  progen::ProgenOptions opts;
  opts.length = 30;
  const progen::RandomProgram program = progen::generateProgram(cfg, 11, opts);

  // One cycle per activation (the clock process as it was before batching),
  // and 4096 cycles per activation, polling at different moments.
  const PortRun single = runThroughPort(cfg, program, 1, 97);
  const PortRun batched = runThroughPort(cfg, program, 4096, 1);
  ASSERT_GT(single.counters[regs::kCntCycles], 500u) << "the program is too short to test anything";
  EXPECT_GT(single.polls, batched.polls);
  for (uint32_t c = 0; c < regs::kNumCounters; ++c)
    EXPECT_EQ(single.counters[c], batched.counters[c]) << "hardware counter " << c;

  Dram fsim_dram;
  FunctionalSimulator fsim(cfg, fsim_dram);
  const progen::FsimRun expected = progen::runOnFsim(fsim, fsim_dram, program);
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    EXPECT_EQ(single.buffers[b], expected.buffers[b]) << "buffer " << program.buffers[b].name << ", single steps";
    EXPECT_EQ(batched.buffers[b], expected.buffers[b]) << "buffer " << program.buffers[b].name << ", batched";
  }
}

TEST_P(ClockBatching, StepAdvancesTheClockByExactlyTheCyclesAsked) {
  const hw::HwConfig cfg = hw::loadConfig(GetParam());
  if (!cycleSimSupports(cfg)) GTEST_SKIP() << "no cycle-accurate model of " << cfg.name << " in this build";
  Dram dram;
  CycleRegisterPort port(cfg, dram);
  const uint64_t start = port.cycle();
  port.step(1);
  EXPECT_EQ(port.cycle(), start + 1);
  port.step(12345);
  EXPECT_EQ(port.cycle(), start + 12346);
  // An AXI-Lite read stops the clock at its completion: it takes as many
  // cycles after a long batch as after a single step.
  uint64_t before = port.cycle();
  port.read(regs::kCtrl);
  const uint64_t read_cycles = port.cycle() - before;
  EXPECT_GT(read_cycles, 0u);
  port.step(1);
  before = port.cycle();
  port.read(regs::kCtrl);
  EXPECT_EQ(port.cycle() - before, read_cycles);
  port.step(777);
  EXPECT_EQ(port.cycle(), before + read_cycles + 777);
}

INSTANTIATE_TEST_SUITE_P(Configs, ClockBatching, ::testing::Values("tiny", "pynq"));

}  // namespace
}  // namespace vdla::sim
