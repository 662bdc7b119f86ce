// The Zynq Linux backend ("pynq") against the cycle-accurate simulator: the
// Verilated RTL, whose AXI-Lite slave is the accelerator's real register
// block, serves the shared-memory register window (zynq_window_bridge.h)
// through CycleRegisterPort, and its AXI master reads and writes the DMA file
// the driver maps (attached to a sim::Dram, not copied). Results are compared
// with fsim; errors, deadlock and timeout come from the RTL's own status
// registers. Built only with the cycle simulator; tests skip if this build
// has no model of the tiny config.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include <cstring>

#include "differential.h"
#include "rtl_window_accelerator.h"
#include "vdla/driver/zynq_device.h"
#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/registers.h"
#include "vdla/selftest/selftest.h"
#include "vdla/sim/progen.h"
#include "zynq_window_bridge.h"

namespace {

namespace regs = vdla::hw::regs;
using ::testing::HasSubstr;
using vdla::driver::RunResult;
using vdla::driver::ZynqDevice;
using vdla::zynqtest::CycleBridge;
using vdla::zynqtest::runAssembly;
using vdla::zynqtest::SharedFiles;

TEST(ZynqCycle, SelftestThroughASharedRegisterWindow) {
  REQUIRE_TINY_MODEL(cfg);
  SharedFiles files;
  CycleBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  const auto results = vdla::selftest::runSelftests(dev, vdla::selftest::SelftestOptions{});
  EXPECT_EQ(results.size(), vdla::selftest::selftestCaseNames(dev.config()).size());
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

TEST(ZynqCycle, RandomProgramsMatchFsim) {
  REQUIRE_TINY_MODEL(cfg);
  SharedFiles files;
  CycleBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  auto golden = vdla::driver::createDevice("fsim", cfg);
  for (uint64_t seed = 900; seed < 1000; ++seed)
    ASSERT_EQ(vdla::progentest::runDifferential(*golden, dev, vdla::sim::progen::generateProgram(cfg, seed)), "");
}

// The statistics the driver reports come from the RTL's counters: the same
// micro-op and ALU counts as fsim's.
TEST(ZynqCycle, StatisticsComeFromTheRtlCounters) {
  REQUIRE_TINY_MODEL(cfg);
  SharedFiles files;
  CycleBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  auto golden = vdla::driver::createDevice("fsim", cfg);
  const std::string program =
      "GEMM uops=0:1 iters=2,3 dst=0,0 src=0,0 wgt=0,0 reset\n"
      "GEMM uops=0:1 iters=4,1 dst=0,0 src=0,0 wgt=0,0\n"
      "ALU ADD uops=0:1 iters=3,5 dst=0,0 src=0,0 imm=1\nFINISH\n";
  const RunResult rtl = runAssembly(dev, program);
  const RunResult fsim = runAssembly(*golden, program);
  ASSERT_TRUE(rtl.ok()) << rtl.message;
  ASSERT_TRUE(fsim.ok()) << fsim.message;
  EXPECT_EQ(rtl.stats.gemm_uop_iterations, 10u);
  EXPECT_EQ(rtl.stats.gemm_uop_iterations, fsim.stats.gemm_uop_iterations);
  EXPECT_EQ(rtl.stats.alu_element_ops, 15u * cfg.batch * cfg.block_out);
  EXPECT_EQ(rtl.stats.alu_element_ops, fsim.stats.alu_element_ops);
  EXPECT_EQ(rtl.stats.gemm_macs, fsim.stats.gemm_macs);
  // What the program text fixes (instructions, bytes moved) as fsim counts
  // it: a load and a store of a buffer of each device's own.
  auto withBuffers = [&](vdla::driver::Device& d) {
    const auto data = d.allocate(4096);
    const uint64_t inp = data.phys_addr / cfg.entryBytes(vdla::hw::Memory::Input);
    const uint64_t out = data.phys_addr / cfg.entryBytes(vdla::hw::Memory::Output);
    const RunResult r =
        runAssembly(d, "LOAD INP sram=0 dram=" + std::to_string(inp) + " y=2 x=3 stride=3 push_next\n" +
                           "GEMM uops=0:1 iters=1,1 dst=0,0 src=0,0 wgt=0,0 pop_prev push_next\n" +
                           "STORE OUT sram=0 dram=" + std::to_string(out) + " y=1 x=2 stride=2 pop_prev\nFINISH\n");
    d.release(data);
    return r;
  };
  const RunResult rtl_io = withBuffers(dev), fsim_io = withBuffers(*golden);
  ASSERT_TRUE(rtl_io.ok()) << rtl_io.message;
  ASSERT_TRUE(fsim_io.ok()) << fsim_io.message;
  EXPECT_EQ(rtl_io.stats.totalInstructions(), 4u);
  EXPECT_EQ(rtl_io.stats.dram_bytes_read[int(vdla::hw::Memory::Input)], 6u * cfg.entryBytes(vdla::hw::Memory::Input));
  for (int m = 0; m < vdla::hw::kNumMemoryIds; ++m)
    EXPECT_EQ(rtl_io.stats.dram_bytes_read[m], fsim_io.stats.dram_bytes_read[m]) << "memory " << m;
  EXPECT_EQ(rtl_io.stats.dram_bytes_written, fsim_io.stats.dram_bytes_written);
  EXPECT_EQ(rtl_io.stats.dram_bytes_written, 2u * cfg.entryBytes(vdla::hw::Memory::Output));
}

TEST(ZynqCycle, ErrorsFromTheStatusRegisters) {
  REQUIRE_TINY_MODEL(cfg);
  SharedFiles files;
  CycleBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  // An illegal opcode in the second of three instructions, written as raw bytes.
  const vdla::hw::IsaLayout layout(cfg);
  const auto insns = dev.allocate(3 * 16);
  const auto nop = layout.encode(vdla::hw::makeLoad(vdla::hw::Memory::Input, 0, 0, 0, 1, 1));
  const auto finish = layout.encode(vdla::hw::makeFinish());
  dev.write(insns, 0, nop.data(), 16);
  dev.write(insns, 16, nop.data(), 16);
  dev.write(insns, 32, finish.data(), 16);
  const uint8_t bad = uint8_t((nop[0] & ~7) | 7);  // opcode 7
  dev.write(insns, 16, &bad, 1);
  const RunResult opcode = dev.run(insns.phys_addr, 3, std::chrono::seconds(20));
  dev.release(insns);
  ASSERT_EQ(opcode.status, RunResult::Status::Error);
  EXPECT_THAT(opcode.message, HasSubstr("instruction 1"));
  EXPECT_THAT(opcode.message, HasSubstr("unknown opcode"));
  // A DRAM range outside the DMA region is an AXI response error of the RTL,
  // with the byte address of the entry (dram counts INP entries).
  const RunResult oob = runAssembly(dev, "LOAD INP sram=0 dram=0x100000 y=1 x=2 stride=2\nFINISH\n");
  ASSERT_EQ(oob.status, RunResult::Status::Error);
  std::ostringstream at;
  at << "instruction 0 (LOAD INP, load module): DRAM range at 0x" << std::hex
     << 0x100000u * cfg.entryBytes(vdla::hw::Memory::Input);
  EXPECT_THAT(oob.message, HasSubstr(at.str() + " is not inside an allocated buffer"));
  EXPECT_THAT(oob.message, HasSubstr(" is not inside an allocated buffer (AXI read response error)"));
  const RunResult sram = runAssembly(dev, "LOAD INP sram=127 dram=0 y=1 x=2 stride=2\nFINISH\n");
  EXPECT_THAT(sram.message, HasSubstr("writes INP entries [127, 129) but the memory has 128 entries"));
  const RunResult tokens = runAssembly(dev, "LOAD INP sram=0 dram=0 y=0 x=1 stride=1 push_next\nFINISH\n");
  EXPECT_THAT(tokens.message, HasSubstr("1 unconsumed token(s) in the load->compute queue"));
  // An error stops the accelerator, so the next program runs.
  EXPECT_TRUE(runAssembly(dev, "LOAD INP sram=0 dram=0 y=0 x=1 stride=1\nFINISH\n").ok());
}

TEST(ZynqCycle, DeadlockIsReportedNotWaitedOut) {
  REQUIRE_TINY_MODEL(cfg);
  SharedFiles files;
  CycleBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  vdla::zynqtest::expectDeadlockReportedNotWaitedOut(dev);
}

// A program of 2^28 ALU vectors runs for minutes of simulation: the driver
// gives up after the timeout while the RTL keeps running.
TEST(ZynqCycle, TimesOutWhileTheAcceleratorRuns) {
  REQUIRE_TINY_MODEL(cfg);
  SharedFiles files;
  CycleBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = runAssembly(dev, "ALU ADD uops=0:1 iters=16383,16383 dst=0,0 src=0,0 imm=1\nFINISH\n",
                                  std::chrono::milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(r.status, RunResult::Status::Timeout) << r.message;
  EXPECT_THAT(r.message, HasSubstr("timeout waiting for DONE: the program did not finish within 200 ms"));
  // The compute module is busy (state 3) and fetch has reached the end (7).
  EXPECT_THAT(r.message, HasSubstr("MODULE_STATE 0x0307"));
  EXPECT_THAT(runAssembly(dev, "FINISH\n").message, HasSubstr("the accelerator is still running a program"));
}

}  // namespace
