#pragma once
// Device backend on the C simulation of the HLS C++ (vdla_hw/hls). The host
// side talks to it only as a board driver talks to the hardware: it writes the
// instruction address and count into the AXI-Lite registers, reads them back,
// checks the configuration hash register, writes START and polls CTRL; errors
// and deadlocks are explained from the status registers. Programs run on a
// worker thread so that wait() honours its timeout.
#include <atomic>
#include <future>
#include <memory>
#include <mutex>

#include "vdla/driver/device.h"
#include "vdla/hls/hls_csim.h"
#include "vdla/sim/dram.h"

namespace vdla::driver {

class HlsDevice : public Device {
 public:
  // Throws vdla::Error if the build has no C simulation for `cfg`.
  explicit HlsDevice(const hw::HwConfig& cfg);
  ~HlsDevice() override;

  std::string backendName() const override { return "hls"; }
  const hw::HwConfig& config() const override { return cfg_; }
  Buffer allocate(uint64_t bytes) override;
  void release(const Buffer& buffer) override;
  void write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) override;
  void read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) override;
  void launch(uint64_t insn_addr, uint32_t count) override;
  RunResult wait(std::chrono::milliseconds timeout) override;

 private:
  class DramAdapter : public hls::CsimDram {
   public:
    explicit DramAdapter(sim::Dram& dram) : dram_(dram) {}
    uint8_t* map(uint64_t addr, uint64_t bytes) override { return dram_.map(addr, bytes); }

   private:
    sim::Dram& dram_;
  };

  RunResult runProgram(uint64_t insn_addr, uint32_t count);
  void finishPrevious();

  hw::HwConfig cfg_;
  sim::Dram dram_;
  DramAdapter adapter_;
  std::unique_ptr<hls::HlsCsim> csim_;
  std::mutex dram_mutex_;  // as in FsimDevice: held by a run and by buffer calls
  std::atomic<bool> cancel_{false};
  std::future<RunResult> running_;
};

}  // namespace vdla::driver
