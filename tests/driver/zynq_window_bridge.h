#pragma once
// The Zynq Linux backend ("pynq") without a board: its register window and
// DMA region are shared-memory files, and on the other side a bridge thread
// serves the window with a simulated accelerator (the HLS C simulation, or
// the cycle-accurate RTL), with the window semantics of the synthesis top
// (vdla_hw/hls/vdla_top.cpp): the host writes address, count and START; the
// accelerator takes them in while idle and writes the status back, CTRL only
// when it changes (and always after a START), so that a START the host writes
// meanwhile is never overwritten. So the driver's register protocol -- hash
// check, read-back, START, polling, errors, deadlock and timeout -- runs as on
// hardware. Shared by the tests of both accelerators.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "vdla/driver/device.h"
#include "vdla/driver/register_window.h"
#include "vdla/driver/zynq_device.h"

namespace vdla::zynqtest {

// Where the tests place the DMA region in the accelerator's address space.
constexpr uint64_t kDmaPhys = 0x30000000;
constexpr uint64_t kDmaSize = 4 << 20;

// A register file and a DMA file, zero-filled, in a fresh directory that is
// removed again at the end.
struct SharedFiles {
  std::filesystem::path dir, regs, dma;
  SharedFiles();
  ~SharedFiles();
  // Options that open these files, with short polling and deadlock intervals.
  driver::ZynqOptions options() const;
};

// The accelerator as the bridge drives it: its AXI-Lite registers and a way
// to let time pass.
class WindowAccelerator {
 public:
  virtual ~WindowAccelerator() = default;
  virtual uint32_t readRegister(uint32_t offset) = 0;
  virtual void writeRegister(uint32_t offset, uint32_t value) = 0;
  virtual void reset() = 0;
  virtual void advance() = 0;  // a slice of simulated time
};

// Serves the shared window with an accelerator in a second thread.
class WindowBridge {
 public:
  // `make` builds the accelerator over `dma`, the mapped DMA file: what the
  // accelerator reads and writes at kDmaPhys + i must be byte i of it, the
  // very memory the driver maps. Returns once the window shows the
  // configuration hash, as with a loaded bitstream.
  using Factory = std::function<std::unique_ptr<WindowAccelerator>(uint8_t* dma)>;
  WindowBridge(const SharedFiles& files, const Factory& make);
  ~WindowBridge();
  WindowBridge(const WindowBridge&) = delete;
  WindowBridge& operator=(const WindowBridge&) = delete;

 private:
  volatile uint32_t& word(uint32_t offset);
  void serve();

  driver::MappedRegion window_, dma_;
  std::unique_ptr<WindowAccelerator> accel_;
  std::atomic<bool> stop_{false}, published_{false};
  std::thread thread_;
};

// Assembles `text`, runs it on `dev` and releases the instruction buffer.
driver::RunResult runAssembly(driver::Device& dev, const std::string& text,
                              std::chrono::milliseconds timeout = std::chrono::seconds(20));

// Runs a program whose load and compute modules wait on each other: the
// driver must report the deadlock (which module waits for what) within
// seconds, and then refuse to start over the still-running accelerator.
void expectDeadlockReportedNotWaitedOut(driver::Device& dev);

}  // namespace vdla::zynqtest
