// The `hls` Device (the C simulation of vdla_hw/hls): the selftest on every
// config it is built for, random programs on the 128-bit-bus configs against
// fsim (tiny and pynq run in tests/simulator/progen with every backend), and
// every bad-input error reported like fsim reports it, with nothing hanging.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "differential.h"
#include "vdla/driver/device.h"
#include "vdla/hls/hls_csim.h"
#include "vdla/hw/assembly.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/selftest/selftest.h"
#include "vdla/sim/progen.h"

namespace {

using ::testing::HasSubstr;
using vdla::driver::createDevice;
using vdla::driver::Device;
using vdla::driver::RunResult;

TEST(HlsDevice, IsABackend) {
  const auto names = vdla::driver::deviceBackends();
  EXPECT_NE(std::find(names.begin(), names.end(), "hls"), names.end());
}

class HlsSelftest : public ::testing::TestWithParam<std::string> {};

TEST_P(HlsSelftest, AllCasesPass) {
  auto device = createDevice("hls", vdla::hw::loadConfig(GetParam()));
  const auto results = vdla::selftest::runSelftests(*device, vdla::selftest::SelftestOptions{});
  EXPECT_EQ(results.size(), vdla::selftest::selftestCaseNames(device->config()).size());
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

INSTANTIATE_TEST_SUITE_P(Configs, HlsSelftest, ::testing::ValuesIn(vdla::hls::hlsCsimConfigs()));

// ultra96 and zcu104 move 128-bit words, so entries map onto the bus
// differently than on tiny/pynq.
TEST(HlsDevice, RandomProgramsOnWideBusConfigsMatchFsim) {
  for (const char* name : {"ultra96", "zcu104"}) {
    const auto cfg = vdla::hw::loadConfig(name);
    auto golden = createDevice("fsim", cfg);
    auto hls = createDevice("hls", cfg);
    for (uint64_t seed = 7000; seed < 7010; ++seed)
      ASSERT_EQ(vdla::progentest::runDifferential(*golden, *hls, vdla::sim::progen::generateProgram(cfg, seed)), "");
  }
}

// The micro-op and ALU counters are the accelerator's own performance
// counters (registers 16 and 17), so they check the C simulation's execution
// against fsim's count independently of the buffers.
TEST(HlsDevice, CountersAgreeWithFsim) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  auto golden = createDevice("fsim", cfg);
  auto hls = createDevice("hls", cfg);
  for (uint64_t seed = 300; seed < 320; ++seed) {
    const auto program = vdla::sim::progen::generateProgram(cfg, seed);
    const auto a = vdla::progentest::runOnDevice(*golden, program, std::chrono::seconds(20));
    const auto b = vdla::progentest::runOnDevice(*hls, program, std::chrono::seconds(20));
    ASSERT_TRUE(a.result.ok() && b.result.ok()) << a.result.message << b.result.message;
    EXPECT_EQ(b.result.stats.gemm_uop_iterations, a.result.stats.gemm_uop_iterations) << "seed " << seed;
    EXPECT_EQ(b.result.stats.alu_element_ops, a.result.stats.alu_element_ops) << "seed " << seed;
    EXPECT_EQ(b.result.stats.gemm_macs, a.result.stats.gemm_macs) << "seed " << seed;
    EXPECT_EQ(b.result.stats.totalInstructions(), a.result.stats.totalInstructions()) << "seed " << seed;
  }
}

// Runs assembly on a device; `{INP}` etc. in the text are the entry index of
// a 4 KiB data buffer in that memory's entries.
RunResult runAssembly(Device& dev, std::string text, uint32_t count_override = ~0u,
                      std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto& cfg = dev.config();
  const auto data = dev.allocate(4096);
  const std::pair<const char*, vdla::hw::Memory> names[] = {
      {"{UOP}", vdla::hw::Memory::Uop}, {"{INP}", vdla::hw::Memory::Input}, {"{OUT}", vdla::hw::Memory::Output}};
  for (const auto& [key, mem] : names)
    for (size_t at; (at = text.find(key)) != std::string::npos;)
      text.replace(at, std::strlen(key), std::to_string(data.phys_addr / cfg.entryBytes(mem)));
  const vdla::hw::IsaLayout layout(cfg);
  const auto program = vdla::hw::assemble(text, layout, "test.s");
  const auto insns = dev.allocate(16 * (program.size() + 1));
  for (size_t i = 0; i < program.size(); ++i) dev.write(insns, 16 * i, layout.encode(program[i]).data(), 16);
  const uint32_t count = count_override == ~0u ? uint32_t(program.size()) : count_override;
  RunResult r = dev.run(insns.phys_addr, count, timeout);
  dev.release(insns);
  dev.release(data);
  return r;
}

struct BadProgram {
  const char* name;
  const char* text;
  const char* message;  // fsim's and hls's messages both contain it
};

class HlsErrors : public ::testing::TestWithParam<BadProgram> {};

TEST_P(HlsErrors, ReportedLikeFsim) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  auto fsim = createDevice("fsim", cfg);
  auto hls = createDevice("hls", cfg);
  const RunResult expected = runAssembly(*fsim, GetParam().text);
  const RunResult got = runAssembly(*hls, GetParam().text);
  ASSERT_EQ(expected.status, RunResult::Status::Error);
  ASSERT_EQ(got.status, RunResult::Status::Error) << got.message;
  EXPECT_THAT(expected.message, HasSubstr(GetParam().message));
  EXPECT_THAT(got.message, HasSubstr(GetParam().message));
  // The device stays usable: a good program runs afterwards.
  EXPECT_TRUE(runAssembly(*hls, "LOAD INP sram=0 dram={INP} y=1 x=1 stride=1\nFINISH\n").ok());
}

const BadProgram kBadPrograms[] = {
    {"deadlock",
     "LOAD UOP sram=0 dram={UOP} y=1 x=1 stride=1\nLOAD INP sram=0 dram={INP} y=1 x=1 stride=1\n"
     "GEMM uops=0:1 iters=1,1 pop_prev\nFINISH\n",
     "compute module waits at instruction 2 (GEMM, compute module) for a token in the empty load->compute queue"},
    {"deadlock_cycle",
     "LOAD INP sram=0 dram={INP} y=1 x=1 stride=1 pop_next push_next\n"
     "GEMM uops=0:0 iters=1,1 pop_prev push_prev\nFINISH\n",
     "load module waits at instruction 0 (LOAD INP, load module) for a token in the empty compute->load queue"},
    {"dram_oob", "LOAD INP sram=0 dram=0x100000 y=1 x=2 stride=2\nFINISH\n",
     "instruction 0 (LOAD INP, load module): DRAM range"},
    {"dram_oob_store", "STORE OUT sram=0 dram=0x100000 y=1 x=2 stride=2\nFINISH\n",
     "instruction 0 (STORE OUT, store module): DRAM range"},
    {"sram_oob", "LOAD INP sram=127 dram={INP} y=1 x=2 stride=2\nFINISH\n",
     "instruction 0 (LOAD INP, load module): writes INP entries [127, 129) but the memory has 128 entries"},
    {"store_sram_oob", "STORE OUT sram=63 dram={OUT} y=1 x=2 stride=2\nFINISH\n",
     "instruction 0 (STORE OUT, store module): reads OUT entries [63, 65) but the memory has 64 entries"},
    {"gemm_index", "LOAD UOP sram=0 dram={UOP} y=1 x=1 stride=1\nGEMM uops=0:1 iters=2,2 dst=32,32 reset\nFINISH\n",
     "instruction 1 (GEMM, compute module): dst (accumulator) index reaches 64 but the ACC memory has 64 entries"},
    {"uop_range", "GEMM uops=0:300 iters=1,1 reset\nFINISH\n",
     "instruction 0 (GEMM, compute module): micro-op range [0, 300) is not inside the micro-op memory of 256 entries"},
    {"tokens", "LOAD INP sram=0 dram={INP} y=1 x=1 stride=1 push_next\nFINISH\n",
     "finished with 1 unconsumed token(s) in the load->compute queue (pushes and pops do not balance)"},
    {"no_finish", "LOAD INP sram=0 dram={INP} y=1 x=1 stride=1\nLOAD INP sram=0 dram={INP} y=1 x=1 stride=1\n",
     "program of 2 instructions does not end with FINISH"},
    {"finish_not_last", "LOAD INP sram=0 dram={INP} y=1 x=1 stride=1\nFINISH\nFINISH\n",
     "instruction 1 (FINISH, compute module): FINISH must be the last instruction, but 1 follow it"},
};

INSTANTIATE_TEST_SUITE_P(Programs, HlsErrors, ::testing::ValuesIn(kBadPrograms),
                         [](const ::testing::TestParamInfo<BadProgram>& info) { return std::string(info.param.name); });

TEST(HlsDevice, EmptyProgramIsAnError) {
  auto hls = createDevice("hls", vdla::hw::loadConfig("tiny"));
  const RunResult r = runAssembly(*hls, "FINISH\n", 0);
  ASSERT_EQ(r.status, RunResult::Status::Error);
  EXPECT_THAT(r.message, HasSubstr("program is empty"));
}

TEST(HlsDevice, TimeoutCancelsAndTheNextRunWorks) {
  auto hls = createDevice("hls", vdla::hw::loadConfig("tiny"));
  // 16383 x 16383 micro-op iterations: minutes of C simulation.
  const RunResult slow = runAssembly(*hls,
                                     "LOAD UOP sram=0 dram={UOP} y=1 x=1 stride=1\n"
                                     "GEMM uops=0:1 iters=16383,16383 reset\nFINISH\n",
                                     ~0u, std::chrono::milliseconds(50));
  ASSERT_EQ(slow.status, RunResult::Status::Timeout) << slow.message;
  EXPECT_THAT(slow.message, HasSubstr("did not finish within 50 ms"));
  const RunResult next = runAssembly(*hls, "LOAD INP sram=0 dram={INP} y=1 x=1 stride=1\nFINISH\n");
  EXPECT_TRUE(next.ok()) << next.message;
}

TEST(HlsDevice, RefusesOptionsItCannotHonour) {
  vdla::driver::DeviceOptions o;
  o.max_cycles = 10;
  try {
    createDevice("hls", vdla::hw::loadConfig("tiny"), o);
    FAIL();
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the hls device (C simulation) has no clock"));
  }
}

}  // namespace
