#pragma once
// Device backend for a VDLA accelerator reached through the Xilinx Runtime
// (XRT): an Alveo card, or an embedded platform running zocl (Zynq
// UltraScale+, Versal), whose xclbin holds the accelerator as a user-managed
// IP. The register protocol is the one of every VDLA driver (hash check,
// read-back, START, polling; errors and deadlocks explained from the status
// registers); registers go through XRT's IP register access, DRAM buffers are
// XRT buffer objects whose device address is what the programs use.
//
// Built only with XRT (VDLA_WITH_XRT); created by name "xrt" (createDevice),
// configured from the environment:
//   VDLA_XRT_DEVICE     device index (default 0) or PCIe BDF, as `xbutil examine` lists them
//   VDLA_XRT_XCLBIN     xclbin to load; unset: attach to the xclbin already loaded on the device
//   VDLA_XRT_IP         the accelerator's name in the xclbin's IP_LAYOUT (default vdla_top)
//   VDLA_XRT_MEM_GROUP  memory bank group of the buffers, the one the accelerator's m_axi port
//                       is connected to (default 0)
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "vdla/driver/device.h"

namespace vdla::driver {

class BackgroundRun;

struct XrtOptions {
  std::string device = "0";
  std::string xclbin;
  std::string ip = "vdla_top";
  uint32_t memory_group = 0;
  std::chrono::microseconds poll_interval{200};
  // How long every module must stay blocked with no change before a run is
  // reported as deadlocked.
  std::chrono::milliseconds deadlock_after{100};

  // The defaults overridden by the VDLA_XRT_* variables; throws vdla::Error
  // for a malformed number.
  static XrtOptions fromEnvironment();
};

class XrtDevice : public Device {
 public:
  // Opens the device, loads (or attaches to) the xclbin, opens the IP and
  // checks its configuration hash; throws vdla::Error naming what failed
  // (device not found, permission denied, xclbin load failure, IP not found,
  // configuration hash mismatch).
  XrtDevice(const hw::HwConfig& cfg, const XrtOptions& options);
  ~XrtDevice() override;

  std::string backendName() const override { return "xrt"; }
  const hw::HwConfig& config() const override { return cfg_; }
  Buffer allocate(uint64_t bytes) override;
  void release(const Buffer& buffer) override;
  void write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) override;
  void read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) override;
  void launch(uint64_t insn_addr, uint32_t count) override;
  RunResult wait(std::chrono::milliseconds timeout) override;

 private:
  struct Xrt;  // the XRT objects; XRT's headers stay out of this header
  RunResult runProgram(uint64_t insn_addr, uint32_t count);

  hw::HwConfig cfg_;
  XrtOptions options_;
  std::unique_ptr<Xrt> xrt_;
  std::unique_ptr<BackgroundRun> run_;
};

}  // namespace vdla::driver
