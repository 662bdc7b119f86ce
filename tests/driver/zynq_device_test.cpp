// The Zynq Linux backend ("pynq") without a board: its register window and
// DMA region are shared-memory files, and on the other side a bridge thread
// serves the window with the HLS C simulation, with the window semantics of
// the synthesis top (vdla_hw/hls/vdla_top.cpp: the host writes address, count
// and START; the accelerator copies them in while idle and writes status
// back, CTRL only when it changes). So the driver's register protocol -- hash
// check, read-back, START, polling, errors, deadlock and timeout -- runs
// exactly as on hardware, and its results are compared with fsim.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "differential.h"
#include "vdla/driver/register_window.h"
#include "vdla/driver/zynq_device.h"
#include "vdla/hls/hls_csim.h"
#include "vdla/hw/assembly.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/registers.h"
#include "vdla/selftest/selftest.h"
#include "vdla/sim/progen.h"

namespace {

namespace fs = std::filesystem;
namespace regs = vdla::hw::regs;
using ::testing::HasSubstr;
using vdla::driver::MappedRegion;
using vdla::driver::RunResult;
using vdla::driver::ZynqDevice;
using vdla::driver::ZynqOptions;

constexpr uint64_t kDmaPhys = 0x30000000;
constexpr uint64_t kDmaSize = 4 << 20;

// A register file and a DMA file, zero-filled, in a fresh directory.
struct SharedFiles {
  fs::path dir, regs, dma;
  SharedFiles() {
    dir = fs::temp_directory_path() / ("vdla_zynq_test_" + std::to_string(::getpid()) + "_" +
                                       std::to_string(counter()++));
    fs::create_directories(dir);
    regs = dir / "regs";
    dma = dir / "dma";
    fs::resize_file(create(regs), 0x1000);
    fs::resize_file(create(dma), kDmaSize);
  }
  ~SharedFiles() { fs::remove_all(dir); }
  static int& counter() {
    static int n = 0;
    return n;
  }
  static fs::path create(const fs::path& p) {
    std::ofstream(p.string()).flush();
    return p;
  }
  ZynqOptions options() const {
    ZynqOptions o;
    o.registers = regs.string();
    o.dma = dma.string();
    o.dma_phys = kDmaPhys;
    o.dma_size = kDmaSize;
    o.poll_interval = std::chrono::microseconds(50);
    o.deadlock_after = std::chrono::milliseconds(30);
    return o;
  }
};

// The accelerator side: the HLS C simulation behind the shared window.
class CsimBridge : public vdla::hls::CsimDram {
 public:
  CsimBridge(const vdla::hw::HwConfig& cfg, const SharedFiles& files)
      : window_(files.regs.string(), 0, 0x1000, false),
        dma_(files.dma.string(), 0, kDmaSize, false),
        csim_(vdla::hls::createHlsCsim(cfg, *this)),
        thread_([this] { serve(); }) {
    // Like a loaded bitstream, the window shows the hash before the driver looks.
    while (!published_) std::this_thread::yield();
  }
  ~CsimBridge() override {
    stop_ = true;
    thread_.join();
  }
  uint8_t* map(uint64_t addr, uint64_t bytes) override {
    if (addr < kDmaPhys || addr + bytes > kDmaPhys + kDmaSize) return nullptr;
    return dma_.data() + (addr - kDmaPhys);
  }

 private:
  volatile uint32_t& word(uint32_t offset) { return reinterpret_cast<volatile uint32_t*>(window_.data())[offset / 4]; }
  void serve() {
    uint32_t ctrl_written = 0;
    while (!stop_) {
      bool started = false;
      if (!(csim_->readRegister(regs::kCtrl) & regs::kCtrlRunning) && (word(regs::kCtrl) & regs::kCtrlStart)) {
        started = true;
        csim_->reset();
        for (uint32_t off : {regs::kInsnAddr, regs::kInsnAddrHi, regs::kInsnCount}) csim_->writeRegister(off, word(off));
        csim_->writeRegister(regs::kCtrl, regs::kCtrlStart);
      }
      const bool idle = csim_->step(256) == vdla::hls::HlsCsim::Progress::Idle;
      for (uint32_t off = 4; off < regs::kSpanBytes; off += 4)
        if (off != regs::kInsnAddr && off != regs::kInsnAddrHi && off != regs::kInsnCount)
          word(off) = csim_->readRegister(off);
      const uint32_t ctrl = csim_->readRegister(regs::kCtrl);
      if (ctrl != ctrl_written || started) word(regs::kCtrl) = ctrl_written = ctrl;
      published_ = true;
      if (idle) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }
  MappedRegion window_, dma_;
  std::unique_ptr<vdla::hls::HlsCsim> csim_;
  std::atomic<bool> stop_{false}, published_{false};
  std::thread thread_;
};

RunResult runAssembly(vdla::driver::Device& dev, const std::string& text,
                      std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const vdla::hw::IsaLayout layout(dev.config());
  const auto program = vdla::hw::assemble(text, layout, "test.s");
  const auto insns = dev.allocate(16 * program.size());
  for (size_t i = 0; i < program.size(); ++i) dev.write(insns, 16 * i, layout.encode(program[i]).data(), 16);
  RunResult r = dev.run(insns.phys_addr, uint32_t(program.size()), timeout);
  dev.release(insns);
  return r;
}

TEST(ZynqDevice, SelftestThroughASharedRegisterWindow) {
  for (const char* name : {"tiny", "pynq"}) {
    const auto cfg = vdla::hw::loadConfig(name);
    SharedFiles files;
    CsimBridge bridge(cfg, files);
    ZynqDevice dev(cfg, files.options());
    const auto results = vdla::selftest::runSelftests(dev, vdla::selftest::SelftestOptions{});
    EXPECT_EQ(results.size(), 27u) << name;
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
  const auto start = std::chrono::steady_clock::now();
  const RunResult deadlock = runAssembly(dev, "LOAD INP sram=0 dram=0 y=0 x=0 stride=0 pop_next push_next\n"
                                              "GEMM uops=0:0 iters=1,1 pop_prev push_prev\nFINISH\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(deadlock.status, RunResult::Status::Error);
  EXPECT_THAT(deadlock.message, HasSubstr("deadlock: no module can make progress; load module waits at instruction 0 "
                                          "(LOAD INP, load module) for a token in the empty compute->load queue; "
                                          "compute module waits at instruction 1 (GEMM, compute module) for a token "
                                          "in the empty load->compute queue; store module is idle"));
  // A deadlocked accelerator keeps running until it is reset (bitstream
  // reload); the driver says so instead of starting over it.
  EXPECT_THAT(runAssembly(dev, "FINISH\n").message, HasSubstr("the accelerator is still running a program"));
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
