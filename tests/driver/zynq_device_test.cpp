// The Zynq Linux backend ("pynq") against the HLS C simulation behind a
// shared-memory register window (zynq_window_bridge.h), its results compared
// with fsim; also what it reports with no accelerator or no device at all.
// zynq_cycle_test.cpp runs the same protocol against the cycle-accurate RTL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "csim_window_accelerator.h"
#include "differential.h"
#include "vdla/driver/register_window.h"
#include "vdla/driver/zynq_device.h"
#include "vdla/hw/error.h"
#include "vdla/hw/registers.h"
#include "vdla/selftest/selftest.h"
#include "vdla/sim/progen.h"
#include "zynq_window_bridge.h"

namespace {

namespace fs = std::filesystem;
namespace regs = vdla::hw::regs;
using ::testing::HasSubstr;
using vdla::driver::MappedRegion;
using vdla::driver::RunResult;
using vdla::driver::ZynqDevice;
using vdla::driver::ZynqOptions;
using vdla::zynqtest::CsimBridge;
using vdla::zynqtest::kDmaPhys;
using vdla::zynqtest::kDmaSize;
using vdla::zynqtest::runAssembly;
using vdla::zynqtest::SharedFiles;

TEST(ZynqDevice, SelftestThroughASharedRegisterWindow) {
  for (const char* name : {"tiny", "pynq"}) {
    const auto cfg = vdla::hw::loadConfig(name);
    SharedFiles files;
    CsimBridge bridge(cfg, files);
    ZynqDevice dev(cfg, files.options());
    const auto results = vdla::selftest::runSelftests(dev, vdla::selftest::SelftestOptions{});
    EXPECT_EQ(results.size(), vdla::selftest::selftestCaseNames(dev.config()).size()) << name;
    for (const auto& r : results) EXPECT_TRUE(r.passed) << name << " " << r.name << ": " << r.detail;
  }
}

TEST(ZynqDevice, RandomProgramsMatchFsim) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  CsimBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  auto golden = vdla::driver::createDevice("fsim", cfg);
  for (uint64_t seed = 900; seed < 930; ++seed)
    ASSERT_EQ(vdla::progentest::runDifferential(*golden, dev, vdla::sim::progen::generateProgram(cfg, seed)), "");
}

TEST(ZynqDevice, ErrorsFromTheStatusRegisters) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  CsimBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  const RunResult oob = runAssembly(dev, "LOAD INP sram=0 dram=0x100000 y=1 x=2 stride=2\nFINISH\n");
  ASSERT_EQ(oob.status, RunResult::Status::Error);
  EXPECT_THAT(oob.message, HasSubstr("instruction 0 (LOAD INP, load module): DRAM range at 0x800000 is not inside an "
                                     "allocated buffer (AXI read response error)"));
  const RunResult sram = runAssembly(dev, "LOAD INP sram=127 dram=0 y=1 x=2 stride=2\nFINISH\n");
  EXPECT_THAT(sram.message, HasSubstr("writes INP entries [127, 129) but the memory has 128 entries"));
  const RunResult tokens = runAssembly(dev, "LOAD INP sram=0 dram=0 y=0 x=1 stride=1 push_next\nFINISH\n");
  EXPECT_THAT(tokens.message, HasSubstr("1 unconsumed token(s) in the load->compute queue"));
  // An error stops the accelerator, so the next program runs.
  EXPECT_TRUE(runAssembly(dev, "LOAD INP sram=0 dram=0 y=0 x=1 stride=1\nFINISH\n").ok());
}

TEST(ZynqDevice, DeadlockIsReportedNotWaitedOut) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  CsimBridge bridge(cfg, files);
  ZynqDevice dev(cfg, files.options());
  vdla::zynqtest::expectDeadlockReportedNotWaitedOut(dev);
}

TEST(ZynqDevice, RefusesAWindowWithoutTheMatchingBitstream) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;  // no bridge: the window reads 0 everywhere
  ZynqDevice dev(cfg, files.options());
  const RunResult r = runAssembly(dev, "FINISH\n");
  ASSERT_EQ(r.status, RunResult::Status::Error);
  EXPECT_THAT(r.message, HasSubstr("reports configuration hash 0000000000000000 but the config 'tiny' has hash " +
                                   cfg.hashHex() + ": refusing to run on a mismatched bitstream"));
  EXPECT_THAT(r.message, HasSubstr("no VDLA bitstream is loaded"));
}

TEST(ZynqDevice, TimesOutWhenDoneNeverComes) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  {  // An accelerator that shows the right hash but never runs.
    MappedRegion window(files.regs.string(), 0, 0x1000, false);
    reinterpret_cast<uint32_t*>(window.data())[regs::kHashLo / 4] = uint32_t(cfg.hash);
    reinterpret_cast<uint32_t*>(window.data())[regs::kHashHi / 4] = uint32_t(cfg.hash >> 32);
  }
  ZynqDevice dev(cfg, files.options());
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = runAssembly(dev, "FINISH\n", std::chrono::milliseconds(50));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(r.status, RunResult::Status::Timeout);
  EXPECT_THAT(r.message, HasSubstr("timeout waiting for DONE: the program did not finish within 50 ms"));
  // START was never acknowledged, so the accelerator still reads RUNNING.
  const RunResult again = runAssembly(dev, "FINISH\n");
  EXPECT_THAT(again.message, HasSubstr("the accelerator is still running a program"));
}

TEST(ZynqDevice, ClearErrorsForMissingDevicesAndMemory) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  ZynqOptions o = files.options();
  o.registers = (files.dir / "uio9").string();
  try {
    ZynqDevice dev(cfg, o);
    FAIL() << "a missing register device must be refused";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open " + o.registers + ": No such file or directory (device not found"));
  }
  // A UIO device is looked up by name in sysfs.
  fs::create_directories(files.dir / "sys" / "uio0");
  std::ofstream((files.dir / "sys" / "uio0" / "name").string()) << "axi_dma\n";
  try {
    vdla::driver::findUioDevice("vdla", (files.dir / "sys").string());
    FAIL() << "no UIO device is named vdla";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("device not found: no UIO device named 'vdla'"));
    EXPECT_THAT(e.what(), HasSubstr("present: uio0 (axi_dma)"));
  }
  o = files.options();
  o.dma_phys = 0;  // not a u-dma-buf device, so its address is unknown
  try {
    ZynqDevice dev(cfg, o);
    FAIL() << "a DMA region of unknown address must be refused";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("is not a u-dma-buf device"));
  }
  ZynqDevice dev(cfg, files.options());
  const auto a = dev.allocate(kDmaSize / 2);
  try {
    dev.allocate(kDmaSize);
    FAIL() << "allocation past the DMA region must be refused";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("out of DMA memory"));
  }
  const auto b = dev.allocate(4096);
  EXPECT_EQ(b.phys_addr, kDmaPhys + kDmaSize / 2);
  dev.release(a);
  EXPECT_EQ(dev.allocate(100).phys_addr, kDmaPhys);  // first fit reuses the freed block
}

}  // namespace

// Numeric settings are unsigned numbers and nothing else: std::stoull alone
// would read "-1" as 2^64-1 and " 7" as 7.
TEST(ZynqDevice, NumericSettingsRefuseSignsSpacesAndOverflow) {
  auto errorFor = [](const char* value) -> std::string {
    setenv("VDLA_ZYNQ_DMA_SIZE", value, 1);
    try {
      ZynqOptions::fromEnvironment();
    } catch (const vdla::Error& e) {
      unsetenv("VDLA_ZYNQ_DMA_SIZE");
      return e.what();
    }
    unsetenv("VDLA_ZYNQ_DMA_SIZE");
    return "";
  };
  EXPECT_THAT(errorFor("-1"), HasSubstr("VDLA_ZYNQ_DMA_SIZE: '-1' is not a number"));
  EXPECT_THAT(errorFor("+4096"), HasSubstr("'+4096' is not a number"));
  EXPECT_THAT(errorFor(" 4096"), HasSubstr("' 4096' is not a number"));
  EXPECT_THAT(errorFor("4096 "), HasSubstr("'4096 ' is not a number"));
  EXPECT_THAT(errorFor("0x1g"), HasSubstr("'0x1g' is not a number"));
  EXPECT_THAT(errorFor("18446744073709551616"), HasSubstr("is out of range (at most 2^64-1)"));
  EXPECT_EQ(errorFor("0x10000"), "");
  setenv("VDLA_ZYNQ_DMA_SIZE", "0x10000", 1);
  EXPECT_EQ(ZynqOptions::fromEnvironment().dma_size, 0x10000u);
  unsetenv("VDLA_ZYNQ_DMA_SIZE");
}
