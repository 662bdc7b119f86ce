#pragma once
// Device: the one interface through which the runtime and the tools reach a VDLA
// instance, whatever implements it (functional simulator, cycle-accurate
// simulator, HLS C-simulation, a Pynq/Zynq board).
//
// Buffers live in the device's physical address space; programs refer to them
// by physical address. launch() starts a program and returns at once; wait()
// blocks until it ends or the timeout passes, and never hangs beyond it.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::driver {

struct Buffer {
  uint64_t phys_addr = 0;
  uint64_t size = 0;
};

struct RunResult {
  enum class Status { Ok, Error, Timeout };
  Status status = Status::Ok;
  std::string message;  // the reason, for Error and Timeout
  sim::ExecutionStats stats;
  double wall_seconds = 0;
  bool ok() const { return status == Status::Ok; }
};

class Device {
 public:
  virtual ~Device() = default;

  virtual std::string backendName() const = 0;
  virtual const hw::HwConfig& config() const = 0;

  // Physically contiguous, zero-filled, aligned to 4 KiB (enough for every
  // entry size of every shipped config).
  virtual Buffer allocate(uint64_t bytes) = 0;
  virtual void release(const Buffer& buffer) = 0;
  // Throw vdla::Error if [offset, offset+bytes) is outside the buffer.
  virtual void write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) = 0;
  virtual void read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) = 0;

  // Starts `count` instructions at physical address `insn_addr`. Throws
  // vdla::Error if a program is still running.
  virtual void launch(uint64_t insn_addr, uint32_t count) = 0;
  virtual RunResult wait(std::chrono::milliseconds timeout) = 0;

  // Convenience: launch and wait.
  RunResult run(uint64_t insn_addr, uint32_t count, std::chrono::milliseconds timeout);
};

// Backend names that this build can create ("fsim", "cycle" when the
// cycle-accurate simulator is built, ...).
std::vector<std::string> deviceBackends();

// Options that only some backends support; a backend refuses one it cannot
// honour rather than ignoring it.
struct DeviceOptions {
  std::string trace_path;   // timeline trace (Chrome/Perfetto JSON)
  std::string waves_path;   // waveform (VCD)
  uint64_t max_cycles = 0;  // cycle limit of a run; 0 = the backend's default
  // Module activity in every run's statistics (timing backends), for one
  // timeline of many runs.
  bool record_activity = false;
  bool empty() const { return trace_path.empty() && waves_path.empty() && max_cycles == 0 && !record_activity; }
};

// Creates a device by backend name; throws vdla::Error naming the available
// backends for an unknown one.
std::unique_ptr<Device> createDevice(const std::string& backend, const hw::HwConfig& cfg);
std::unique_ptr<Device> createDevice(const std::string& backend, const hw::HwConfig& cfg, const DeviceOptions& options);

// Checks that [offset, offset+bytes) lies in `buffer`; shared by backends.
void checkBufferRange(const Buffer& buffer, uint64_t offset, uint64_t bytes, const char* what);

}  // namespace vdla::driver
