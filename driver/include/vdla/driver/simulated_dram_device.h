#pragma once
// A Device whose DRAM is a sim::Dram in this process: the part that the fsim,
// cycle and hls backends share. Buffers are carved out of the simulated DRAM;
// programs run on a worker thread so that wait() honours its timeout, and a
// timed-out run is cancelled through cancel_, which each backend's
// runProgram() polls.
#include <atomic>
#include <future>
#include <mutex>

#include "vdla/driver/device.h"
#include "vdla/sim/dram.h"

namespace vdla::driver {

class SimulatedDramDevice : public Device {
 public:
  const hw::HwConfig& config() const override { return cfg_; }
  Buffer allocate(uint64_t bytes) override;
  void release(const Buffer& buffer) override;
  void write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) override;
  void read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) override;
  void launch(uint64_t insn_addr, uint32_t count) override;
  RunResult wait(std::chrono::milliseconds timeout) override;

 protected:
  explicit SimulatedDramDevice(const hw::HwConfig& cfg);

  // Runs one program on the worker thread, with the DRAM mutex held; throws
  // vdla::Error (or any std::exception) for a failed or cancelled run. The
  // wall time and the error status are filled in by launch().
  virtual RunResult runProgram(uint64_t insn_addr, uint32_t count) = 0;

  // Waits for the previous run, if any, to end.
  void finishPrevious();
  // Cancels the running program and waits for it. Every backend's destructor
  // calls it first: the worker uses the backend's simulator, which is
  // destroyed before this base class is.
  void cancelAndFinish();

  hw::HwConfig cfg_;
  sim::Dram dram_;
  std::atomic<bool> cancel_{false};

 private:
  // Held by a running program for its whole run and by every buffer call, so
  // that host access never races with the simulator; buffer calls made during
  // a run wait for it (a cancelled run stops within one loop iteration).
  std::mutex dram_mutex_;
  std::future<RunResult> running_;
};

}  // namespace vdla::driver
