#pragma once
// Device backend for a VDLA bitstream on a Zynq under Linux (Pynq-Z1,
// Ultra96, ZCU104): the accelerator's registers through a UIO device or
// /dev/mem, and physically contiguous buffers carved out of a u-dma-buf (or
// CMA) region whose physical address the kernel reports. The register
// protocol is the one of every VDLA driver (hash check, read-back, START,
// polling; errors and deadlocks explained from the status registers).
//
// Created by name "pynq" (createDevice), configured from the environment:
//   VDLA_ZYNQ_REGS         uio:NAME (default uio:vdla), /dev/uioN, or /dev/mem
//   VDLA_ZYNQ_REGS_OFFSET  byte offset of the window in that file (/dev/mem: the AXI-Lite base address)
//   VDLA_ZYNQ_DMA          u-dma-buf device (default /dev/udmabuf0) or a file backing physical memory
//   VDLA_ZYNQ_DMA_PHYS     physical address of its first byte (default: u-dma-buf's sysfs phys_addr)
//   VDLA_ZYNQ_DMA_SIZE     its size in bytes (default: u-dma-buf's sysfs size)
//   VDLA_ZYNQ_DMA_CACHED   1: cached mapping with u-dma-buf sync_for_device/sync_for_cpu around runs
#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "vdla/driver/device.h"
#include "vdla/driver/register_window.h"

namespace vdla::driver {

class BackgroundRun;

struct ZynqOptions {
  std::string registers = "uio:vdla";
  uint64_t registers_offset = 0;
  uint64_t registers_size = 0x1000;
  std::string dma = "/dev/udmabuf0";
  uint64_t dma_phys = 0;  // 0: read from /sys/class/u-dma-buf/<name>/phys_addr
  uint64_t dma_size = 0;  // 0: read from /sys/class/u-dma-buf/<name>/size
  bool dma_cached = false;
  std::chrono::microseconds poll_interval{200};
  // How long every module must stay blocked with no change before a run is
  // reported as deadlocked.
  std::chrono::milliseconds deadlock_after{100};

  // The defaults overridden by the VDLA_ZYNQ_* variables; throws vdla::Error
  // for a malformed number.
  static ZynqOptions fromEnvironment();
};

class ZynqDevice : public Device {
 public:
  // Opens the register window and the DMA region; throws vdla::Error naming
  // what is missing (device not found, permission denied, ...).
  ZynqDevice(const hw::HwConfig& cfg, const ZynqOptions& options);
  ~ZynqDevice() override;

  std::string backendName() const override { return "pynq"; }
  const hw::HwConfig& config() const override { return cfg_; }
  Buffer allocate(uint64_t bytes) override;
  void release(const Buffer& buffer) override;
  void write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) override;
  void read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) override;
  void launch(uint64_t insn_addr, uint32_t count) override;
  RunResult wait(std::chrono::milliseconds timeout) override;

 private:
  RunResult runProgram(uint64_t insn_addr, uint32_t count);
  uint8_t* hostPointer(uint64_t phys, uint64_t bytes) const;  // nullptr outside the DMA region
  void syncDma(const char* direction);

  hw::HwConfig cfg_;
  ZynqOptions options_;
  std::unique_ptr<RegisterWindow> regs_;
  std::unique_ptr<MappedRegion> dma_;
  std::string dma_sysfs_;               // /sys/class/u-dma-buf/<name>, "" if absent
  std::map<uint64_t, uint64_t> used_;   // offset in the DMA region -> bytes
  std::mutex mutex_;                    // the allocator
  std::unique_ptr<BackgroundRun> run_;  // the worker thread of launch/wait
};

}  // namespace vdla::driver
