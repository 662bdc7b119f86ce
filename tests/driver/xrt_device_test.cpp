// The XRT backend ("xrt", driver/src/xrt_device.cpp) without XRT or a card:
// compiled against the test double of XRT's API in xrt_api/ (see
// xrt_api/xrt_test_card.h), whose card serves its registers and memory from
// the shared register window and DMA file of zynq_window_bridge.h. Behind
// them runs the HLS C simulation and, when the cycle simulator is built, the
// cycle-accurate RTL; results are compared with fsim and the selftest's
// plain references. Also every error the backend must explain: device not
// found, permission denied, xclbin load failure, IP not found, configuration
// hash mismatch, timeout, buffers out of the accelerator's reach.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "csim_window_accelerator.h"
#include "differential.h"
#include "vdla/driver/register_window.h"
#include "vdla/driver/xrt_device.h"
#include "vdla/hw/error.h"
#include "vdla/hw/registers.h"
#include "vdla/selftest/selftest.h"
#include "vdla/sim/progen.h"
#include "xrt_test_card.h"
#include "zynq_window_bridge.h"
#ifdef VDLA_TEST_HAVE_CYCLE_SIM
#include "rtl_window_accelerator.h"
#endif

namespace {

namespace fs = std::filesystem;
namespace regs = vdla::hw::regs;
using ::testing::HasSubstr;
using vdla::driver::RunResult;
using vdla::driver::XrtDevice;
using vdla::driver::XrtOptions;
using vdla::xrttest::CardSpec;
using vdla::xrttest::InstalledCard;
using vdla::zynqtest::CsimBridge;
using vdla::zynqtest::kDmaPhys;
using vdla::zynqtest::kDmaSize;
using vdla::zynqtest::runAssembly;
using vdla::zynqtest::SharedFiles;

// A card over `files`, with an xclbin file of its own, not yet loaded.
CardSpec cardOver(const SharedFiles& files) {
  CardSpec spec;
  spec.xclbin = (files.dir / "vdla.xclbin").string();
  std::ofstream(spec.xclbin) << "xclbin2 stand-in\n";
  spec.registers = files.regs.string();
  spec.memory = files.dma.string();
  spec.memory_base = kDmaPhys;
  spec.memory_size = kDmaSize;
  return spec;
}

XrtOptions optionsFor(const CardSpec& spec) {
  XrtOptions o;
  o.device = "0";
  o.xclbin = spec.xclbin;
  o.poll_interval = std::chrono::microseconds(50);
  o.deadlock_after = std::chrono::milliseconds(30);
  return o;
}

// The window of a loaded bitstream of `cfg` that never runs anything.
void showHash(const SharedFiles& files, const vdla::hw::HwConfig& cfg) {
  vdla::driver::MappedRegion window(files.regs.string(), 0, 0x1000, false);
  reinterpret_cast<uint32_t*>(window.data())[regs::kHashLo / 4] = uint32_t(cfg.hash);
  reinterpret_cast<uint32_t*>(window.data())[regs::kHashHi / 4] = uint32_t(cfg.hash >> 32);
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const vdla::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(XrtDevice, SelftestOnTheHlsCsimThroughXrt) {
  for (const char* name : {"tiny", "pynq"}) {
    const auto cfg = vdla::hw::loadConfig(name);
    SharedFiles files;
    CsimBridge bridge(cfg, files);
    const CardSpec spec = cardOver(files);
    InstalledCard card(0, spec);
    XrtDevice dev(cfg, optionsFor(spec));
    EXPECT_EQ(dev.backendName(), "xrt");
    const auto results = vdla::selftest::runSelftests(dev, vdla::selftest::SelftestOptions{});
    EXPECT_EQ(results.size(), vdla::selftest::selftestCaseNames(dev.config()).size()) << name;
    for (const auto& r : results) EXPECT_TRUE(r.passed) << name << " " << r.name << ": " << r.detail;
    // The double keeps host and device copies apart: the results above
    // reached the accelerator and came back only through sync().
    EXPECT_GT(card.syncsToDevice(), 0u);
    EXPECT_GT(card.syncsFromDevice(), 0u);
    // The HLS top counts scheduling rounds, not clock cycles.
    EXPECT_FALSE(runAssembly(dev, "FINISH\n").stats.has_cycle_counters);
  }
}

TEST(XrtDevice, RandomProgramsMatchFsim) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  CsimBridge bridge(cfg, files);
  const CardSpec spec = cardOver(files);
  InstalledCard card(0, spec);
  XrtDevice dev(cfg, optionsFor(spec));
  auto golden = vdla::driver::createDevice("fsim", cfg);
  for (uint64_t seed = 700; seed < 720; ++seed)
    ASSERT_EQ(vdla::progentest::runDifferential(*golden, dev, vdla::sim::progen::generateProgram(cfg, seed)), "");
}

#ifdef VDLA_TEST_HAVE_CYCLE_SIM
// The RTL's own register block behind XRT's register access: selftest and
// random programs bit-exact with their references and fsim, and the
// statistics from the RTL's counters.
TEST(XrtDevice, RtlThroughXrtMatchesFsim) {
  REQUIRE_TINY_MODEL(cfg);
  SharedFiles files;
  vdla::zynqtest::CycleBridge bridge(cfg, files);
  const CardSpec spec = cardOver(files);
  InstalledCard card(0, spec);
  XrtDevice dev(cfg, optionsFor(spec));
  const auto results = vdla::selftest::runSelftests(dev, vdla::selftest::SelftestOptions{});
  EXPECT_EQ(results.size(), vdla::selftest::selftestCaseNames(dev.config()).size());
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
  auto golden = vdla::driver::createDevice("fsim", cfg);
  for (uint64_t seed = 720; seed < 740; ++seed)
    ASSERT_EQ(vdla::progentest::runDifferential(*golden, dev, vdla::sim::progen::generateProgram(cfg, seed)), "");
  const std::string program = "GEMM uops=0:1 iters=2,3 dst=0,0 src=0,0 wgt=0,0\nFINISH\n";
  const RunResult rtl = runAssembly(dev, program);
  const RunResult fsim = runAssembly(*golden, program);
  ASSERT_TRUE(rtl.ok()) << rtl.message;
  EXPECT_EQ(rtl.stats.gemm_uop_iterations, 6u);
  EXPECT_EQ(rtl.stats.gemm_macs, fsim.stats.gemm_macs);
  // The RTL's clock-cycle counters, as the cycle device reports them for the
  // same program (the cycle counts themselves depend on the host's register
  // traffic, which differs between the two harnesses).
  auto cycle = vdla::driver::createDevice("cycle", cfg);
  const RunResult direct = runAssembly(*cycle, program);
  ASSERT_TRUE(direct.ok()) << direct.message;
  ASSERT_TRUE(rtl.stats.has_cycle_counters);
  EXPECT_EQ(rtl.stats.cycle_counters.gemm_uop_cycles, direct.stats.cycle_counters.gemm_uop_cycles);
  EXPECT_EQ(rtl.stats.cycle_counters.compute.busy, direct.stats.cycle_counters.compute.busy);
  EXPECT_GT(rtl.stats.cycles, rtl.stats.cycle_counters.compute.busy);
  EXPECT_GT(rtl.stats.cycle_counters.fetch.busy, 0u);
}
#endif

TEST(XrtDevice, ErrorsAndDeadlockFromTheStatusRegisters) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  CsimBridge bridge(cfg, files);
  const CardSpec spec = cardOver(files);
  InstalledCard card(0, spec);
  XrtDevice dev(cfg, optionsFor(spec));
  const RunResult oob = runAssembly(dev, "LOAD INP sram=0 dram=0x100000 y=1 x=2 stride=2\nFINISH\n");
  ASSERT_EQ(oob.status, RunResult::Status::Error);
  EXPECT_THAT(oob.message, HasSubstr("instruction 0 (LOAD INP, load module): DRAM range at 0x800000 is not inside an "
                                     "allocated buffer (AXI read response error)"));
  const RunResult tokens = runAssembly(dev, "LOAD INP sram=0 dram=0 y=0 x=1 stride=1 push_next\nFINISH\n");
  EXPECT_THAT(tokens.message, HasSubstr("1 unconsumed token(s) in the load->compute queue"));
  EXPECT_TRUE(runAssembly(dev, "LOAD INP sram=0 dram=0 y=0 x=1 stride=1\nFINISH\n").ok());
  vdla::zynqtest::expectDeadlockReportedNotWaitedOut(dev);
}

TEST(XrtDevice, RefusesAMismatchedOrMissingBitstream) {
  const auto tiny = vdla::hw::loadConfig("tiny");
  const auto pynq = vdla::hw::loadConfig("pynq");
  SharedFiles files;
  const CardSpec spec = cardOver(files);
  InstalledCard card(0, spec);
  // Nothing behind the IP: its registers read 0.
  std::string e = errorOf([&] { XrtDevice dev(tiny, optionsFor(spec)); });
  EXPECT_THAT(e, HasSubstr("reports configuration hash 0000000000000000 but the config 'tiny' has hash " +
                           tiny.hashHex() + ": refusing to run on a mismatched bitstream"));
  EXPECT_THAT(e, HasSubstr("no VDLA bitstream is loaded"));
  // An xclbin of another configuration.
  showHash(files, tiny);
  e = errorOf([&] { XrtDevice dev(pynq, optionsFor(spec)); });
  EXPECT_THAT(e, HasSubstr("reports configuration hash " + tiny.hashHex() + " but the config 'pynq' has hash " +
                           pynq.hashHex() + ": refusing to run on a mismatched bitstream"));
  XrtDevice dev(tiny, optionsFor(spec));  // and the matching one is accepted
}

TEST(XrtDevice, TimesOutWhenDoneNeverComes) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  showHash(files, cfg);  // a loaded xclbin whose accelerator never runs
  const CardSpec spec = cardOver(files);
  InstalledCard card(0, spec);
  XrtDevice dev(cfg, optionsFor(spec));
  const auto start = std::chrono::steady_clock::now();
  const RunResult r = runAssembly(dev, "FINISH\n", std::chrono::milliseconds(50));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(r.status, RunResult::Status::Timeout);
  EXPECT_THAT(r.message, HasSubstr("timeout waiting for DONE: the program did not finish within 50 ms"));
  EXPECT_THAT(r.message, HasSubstr("reload the xclbin"));
  EXPECT_THAT(runAssembly(dev, "FINISH\n").message, HasSubstr("the accelerator is still running a program"));
}

TEST(XrtDevice, ClearErrorsOpeningDeviceXclbinAndIp) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  showHash(files, cfg);
  CardSpec spec = cardOver(files);
  XrtOptions o = optionsFor(spec);
  {
    InstalledCard card(0, spec);
    o.device = "3";
    EXPECT_THAT(errorOf([&] { XrtDevice dev(cfg, o); }),
                HasSubstr("device not found: cannot open XRT device '3': no device with index 3"));
    o.device = "0000:99:00.1";
    EXPECT_THAT(errorOf([&] { XrtDevice dev(cfg, o); }), HasSubstr("device not found: cannot open XRT device "
                                                                   "'0000:99:00.1'"));
    o.device = spec.bdf;  // found by BDF
    XrtDevice by_bdf(cfg, o);
    // XRT opens an IP exclusively.
    o.device = "0";
    EXPECT_THAT(errorOf([&] { XrtDevice dev(cfg, o); }), HasSubstr("already opened with exclusive access"));
  }
  {
    CardSpec locked = spec;
    locked.open_errno = EACCES;
    InstalledCard card(0, locked);
    const std::string e = errorOf([&] { XrtDevice dev(cfg, o); });
    EXPECT_THAT(e, HasSubstr("cannot open XRT device '0'"));
    EXPECT_THAT(e, HasSubstr("(permission denied"));
  }
  InstalledCard card(0, spec);
  o.xclbin = (files.dir / "missing.xclbin").string();
  EXPECT_THAT(errorOf([&] { XrtDevice dev(cfg, o); }),
              HasSubstr("cannot load xclbin '" + o.xclbin + "' on XRT device '0': cannot read xclbin file"));
  o.xclbin = (files.dir / "other.xclbin").string();
  std::ofstream(o.xclbin) << "another design\n";
  EXPECT_THAT(errorOf([&] { XrtDevice dev(cfg, o); }), HasSubstr("is not built for the platform of device"));
  // Attaching needs an xclbin on the card.
  o.xclbin.clear();
  EXPECT_THAT(errorOf([&] { XrtDevice dev(cfg, o); }),
              HasSubstr("no xclbin is loaded on XRT device '0': set VDLA_XRT_XCLBIN"));
  o.xclbin = spec.xclbin;
  o.ip = "vdla";
  const std::string ip = errorOf([&] { XrtDevice dev(cfg, o); });
  EXPECT_THAT(ip, HasSubstr("IP not found or not available: cannot open IP 'vdla' of xclbin " + spec.xclbin_uuid));
  EXPECT_THAT(ip, HasSubstr("no IP named 'vdla' in the IP_LAYOUT"));
  // The xclbin is loaded now (the attempts above loaded it): attach to it.
  o.ip = "vdla_top";
  o.xclbin.clear();
  XrtDevice attached(cfg, o);
  EXPECT_EQ(attached.allocate(100).phys_addr, kDmaPhys);
}

TEST(XrtDevice, BuffersOutOfTheAcceleratorsReachAreRefused) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  showHash(files, cfg);
  CardSpec spec = cardOver(files);
  spec.memory_base = 0xfffff000;  // a bank that straddles 4 GiB
  InstalledCard card(0, spec);
  XrtOptions o = optionsFor(spec);
  XrtDevice dev(cfg, o);
  EXPECT_EQ(dev.allocate(4096).phys_addr, 0xfffff000u);
  EXPECT_THAT(errorOf([&] { dev.allocate(4096); }),
              HasSubstr("at device address 0x100000000, beyond the 4 GiB that the accelerator's 32-bit addresses "
                        "reach: choose a memory bank below 4 GiB with VDLA_XRT_MEM_GROUP"));
}

TEST(XrtDevice, BuffersAreZeroedBoundsCheckedAndReleased) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  SharedFiles files;
  showHash(files, cfg);
  const CardSpec spec = cardOver(files);
  InstalledCard card(0, spec);
  XrtOptions o = optionsFor(spec);
  o.memory_group = 1;  // the double's card has one bank
  EXPECT_THAT(errorOf([&] { XrtDevice(cfg, o).allocate(1); }),
              HasSubstr("cannot allocate a buffer of 1 bytes in memory group 1 of XRT device '0': memory group 1 is "
                        "not connected in the loaded xclbin"));
  XrtDevice dev(cfg, optionsFor(spec));
  const auto a = dev.allocate(10000);
  std::vector<uint8_t> bytes(10000, 1);
  dev.read(a, 0, bytes.data(), bytes.size());
  EXPECT_EQ(bytes, std::vector<uint8_t>(10000, 0));  // the double fills new buffers with garbage
  const uint8_t x[3] = {7, 8, 9};
  dev.write(a, 9997, x, 3);
  uint8_t back[3] = {};
  dev.read(a, 9997, back, 3);
  EXPECT_EQ(back[2], 9);
  EXPECT_THAT(errorOf([&] { dev.write(a, 9998, x, 3); }), HasSubstr("outside the buffer of 10000 bytes"));
  dev.release(a);
  EXPECT_THAT(errorOf([&] { dev.release(a); }), HasSubstr("not allocated on this device"));
  EXPECT_THAT(errorOf([&] { dev.read(a, 0, back, 3); }), HasSubstr("not allocated on this device"));
  EXPECT_EQ(dev.allocate(1).phys_addr, kDmaPhys);  // the freed block is reused
}

TEST(XrtDevice, OptionsFromTheEnvironment) {
  setenv("VDLA_XRT_DEVICE", "0000:65:00.1", 1);
  setenv("VDLA_XRT_XCLBIN", "/opt/vdla/vdla_u250.xclbin", 1);
  setenv("VDLA_XRT_IP", "vdla_top:{vdla_top_1}", 1);
  setenv("VDLA_XRT_MEM_GROUP", "2", 1);
  XrtOptions o = XrtOptions::fromEnvironment();
  EXPECT_EQ(o.device, "0000:65:00.1");
  EXPECT_EQ(o.xclbin, "/opt/vdla/vdla_u250.xclbin");
  EXPECT_EQ(o.ip, "vdla_top:{vdla_top_1}");
  EXPECT_EQ(o.memory_group, 2u);
  setenv("VDLA_XRT_MEM_GROUP", "bank0", 1);
  EXPECT_THAT(errorOf([] { XrtOptions::fromEnvironment(); }), HasSubstr("VDLA_XRT_MEM_GROUP: 'bank0' is not a number"));
  setenv("VDLA_XRT_MEM_GROUP", "-1", 1);  // not 2^64-1
  EXPECT_THAT(errorOf([] { XrtOptions::fromEnvironment(); }), HasSubstr("VDLA_XRT_MEM_GROUP: '-1' is not a number"));
  for (const char* v : {"VDLA_XRT_DEVICE", "VDLA_XRT_XCLBIN", "VDLA_XRT_IP", "VDLA_XRT_MEM_GROUP"}) unsetenv(v);
  o = XrtOptions::fromEnvironment();
  EXPECT_EQ(o.device, "0");
  EXPECT_EQ(o.xclbin, "");
  EXPECT_EQ(o.ip, "vdla_top");
  EXPECT_EQ(o.memory_group, 0u);
}

}  // namespace
