#pragma once
// Device backend on the functional simulator. Programs run on a worker thread so
// that wait() honours its timeout; a timed-out run is cancelled at the next
// instruction boundary or loop iteration.
#include <atomic>
#include <future>
#include <mutex>

#include "vdla/driver/device.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/fsim.h"

namespace vdla::driver {

class FsimDevice : public Device {
 public:
  explicit FsimDevice(const hw::HwConfig& cfg);
  ~FsimDevice() override;

  std::string backendName() const override { return "fsim"; }
  const hw::HwConfig& config() const override { return cfg_; }
  Buffer allocate(uint64_t bytes) override;
  void release(const Buffer& buffer) override;
  void write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) override;
  void read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) override;
  void launch(uint64_t insn_addr, uint32_t count) override;
  RunResult wait(std::chrono::milliseconds timeout) override;

 private:
  void finishPrevious();

  hw::HwConfig cfg_;
  sim::Dram dram_;
  sim::FunctionalSimulator fsim_;
  // Held by a running program for its whole run and by every buffer call, so
  // that host access never races with the simulator; buffer calls made during
  // a run wait for it (a cancelled run stops within one loop iteration).
  std::mutex dram_mutex_;
  std::atomic<bool> cancel_{false};
  std::future<RunResult> running_;
};

}  // namespace vdla::driver
