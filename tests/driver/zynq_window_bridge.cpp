#include "zynq_window_bridge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "vdla/hw/assembly.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/registers.h"

namespace vdla::zynqtest {
namespace {

namespace fs = std::filesystem;
namespace regs = hw::regs;

fs::path createEmpty(const fs::path& p, uint64_t bytes) {
  std::ofstream(p.string()).flush();
  fs::resize_file(p, bytes);
  return p;
}

// The registers a bridge copies from the accelerator into the window: every
// one the driver reads except CTRL (written last, see serve()) and the
// host-written INSN_ADDR/INSN_ADDR_HI/INSN_COUNT.
bool mirrored(uint32_t offset) {
  return (offset >= regs::kHashLo && offset <= regs::kClockKhz) ||
         (offset >= regs::kCounters && offset < regs::kSpanBytes);
}

}  // namespace

SharedFiles::SharedFiles() {
  static int counter = 0;
  dir = fs::temp_directory_path() / ("vdla_zynq_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  regs = createEmpty(dir / "regs", 0x1000);
  dma = createEmpty(dir / "dma", kDmaSize);
}

SharedFiles::~SharedFiles() { fs::remove_all(dir); }

driver::ZynqOptions SharedFiles::options() const {
  driver::ZynqOptions o;
  o.registers = regs.string();
  o.dma = dma.string();
  o.dma_phys = kDmaPhys;
  o.dma_size = kDmaSize;
  o.poll_interval = std::chrono::microseconds(50);
  o.deadlock_after = std::chrono::milliseconds(30);
  return o;
}

WindowBridge::WindowBridge(const SharedFiles& files, const Factory& make)
    : window_(files.regs.string(), 0, 0x1000, false),
      dma_(files.dma.string(), 0, kDmaSize, false),
      accel_(make(dma_.data())),
      thread_([this] {
        // An exception must not end the test process: report it, and leave
        // the window as it is (the driver then times out or sees a deadlock).
        try {
          serve();
        } catch (const std::exception& e) {
          ADD_FAILURE() << "the accelerator behind the register window failed: " << e.what();
        }
        published_ = true;
      }) {
  while (!published_) std::this_thread::yield();
}

WindowBridge::~WindowBridge() {
  stop_ = true;
  thread_.join();
}

volatile uint32_t& WindowBridge::word(uint32_t offset) {
  return reinterpret_cast<volatile uint32_t*>(window_.data())[offset / 4];
}

void WindowBridge::serve() {
  uint32_t ctrl_written = 0;
  bool running = false;
  while (!stop_) {
    bool started = false;
    if (!running && (word(regs::kCtrl) & regs::kCtrlStart)) {
      started = true;
      accel_->reset();
      for (uint32_t off : {regs::kInsnAddr, regs::kInsnAddrHi, regs::kInsnCount}) accel_->writeRegister(off, word(off));
      accel_->writeRegister(regs::kCtrl, regs::kCtrlStart);
    }
    if (!running && !started && published_) {
      // Idle: nothing changes until the host writes START.
      std::this_thread::sleep_for(std::chrono::microseconds(20));
      continue;
    }
    if (running || started) accel_->advance();
    // CTRL first: reading a register of the RTL takes clock cycles, so a
    // run may end while the others are copied; they are then final, and the
    // host never sees DONE next to stale counters.
    const uint32_t ctrl = accel_->readRegister(regs::kCtrl);
    for (uint32_t off = 4; off < regs::kSpanBytes; off += 4)
      if (mirrored(off)) word(off) = accel_->readRegister(off);
    if (ctrl != ctrl_written || started) word(regs::kCtrl) = ctrl_written = ctrl;
    running = ctrl & regs::kCtrlRunning;
    published_ = true;
  }
}

driver::RunResult runAssembly(driver::Device& dev, const std::string& text, std::chrono::milliseconds timeout) {
  const hw::IsaLayout layout(dev.config());
  const auto program = hw::assemble(text, layout, "test.s");
  const auto insns = dev.allocate(16 * program.size());
  for (size_t i = 0; i < program.size(); ++i) dev.write(insns, 16 * i, layout.encode(program[i]).data(), 16);
  driver::RunResult r = dev.run(insns.phys_addr, uint32_t(program.size()), timeout);
  dev.release(insns);
  return r;
}

void expectDeadlockReportedNotWaitedOut(driver::Device& dev) {
  const auto start = std::chrono::steady_clock::now();
  const driver::RunResult deadlock = runAssembly(dev,
                                                 "LOAD INP sram=0 dram=0 y=0 x=0 stride=0 pop_next push_next\n"
                                                 "GEMM uops=0:0 iters=1,1 pop_prev push_prev\nFINISH\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  ASSERT_EQ(deadlock.status, driver::RunResult::Status::Error);
  EXPECT_NE(deadlock.message.find("deadlock: no module can make progress; load module waits at instruction 0 "
                                  "(LOAD INP, load module) for a token in the empty compute->load queue; "
                                  "compute module waits at instruction 1 (GEMM, compute module) for a token "
                                  "in the empty load->compute queue; store module is idle"),
            std::string::npos)
      << deadlock.message;
  // A deadlocked accelerator keeps running until it is reset (bitstream
  // reload); the driver says so instead of starting over it.
  const std::string again = runAssembly(dev, "FINISH\n").message;
  EXPECT_NE(again.find("the accelerator is still running a program"), std::string::npos) << again;
}

}  // namespace vdla::zynqtest
