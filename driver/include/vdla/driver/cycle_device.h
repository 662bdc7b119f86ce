#pragma once
// Device backend on the cycle-accurate simulator (Verilated RTL in SystemC).
// Programs run on a worker thread so that wait() honours its timeout; a
// timed-out run is cancelled at the next status poll (a few thousand cycles).
// Only built when the cycle simulator is (VDLA_WITH_SYSTEMC).
#include <atomic>
#include <future>
#include <mutex>

#include "vdla/driver/device.h"
#include "vdla/sim/cycle_sim.h"
#include "vdla/sim/dram.h"

namespace vdla::driver {

class CycleDevice : public Device {
 public:
  // Throws vdla::Error if the build has no Verilated model for `cfg`.
  CycleDevice(const hw::HwConfig& cfg, const DeviceOptions& options = {});
  ~CycleDevice() override;

  std::string backendName() const override { return "cycle"; }
  const hw::HwConfig& config() const override { return cfg_; }
  Buffer allocate(uint64_t bytes) override;
  void release(const Buffer& buffer) override;
  void write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) override;
  void read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) override;
  void launch(uint64_t insn_addr, uint32_t count) override;
  RunResult wait(std::chrono::milliseconds timeout) override;

  // Trace and waveform paths and the cycle limit of the following runs.
  void setOptions(const DeviceOptions& options);

 private:
  void finishPrevious();

  hw::HwConfig cfg_;
  sim::Dram dram_;
  sim::CycleSimulator sim_;
  std::mutex dram_mutex_;  // as in FsimDevice: held by a run and by buffer calls
  std::atomic<bool> cancel_{false};
  std::future<RunResult> running_;
};

}  // namespace vdla::driver
