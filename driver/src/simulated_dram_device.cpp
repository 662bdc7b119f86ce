#include "vdla/driver/simulated_dram_device.h"

#include <cstring>

#include "vdla/hw/error.h"

namespace vdla::driver {

SimulatedDramDevice::SimulatedDramDevice(const hw::HwConfig& cfg) : cfg_(cfg), dram_() {}

void SimulatedDramDevice::finishPrevious() {
  if (running_.valid()) running_.wait();
  running_ = {};
}

void SimulatedDramDevice::cancelAndFinish() {
  cancel_ = true;
  finishPrevious();
}

Buffer SimulatedDramDevice::allocate(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(dram_mutex_);
  return Buffer{dram_.allocate(bytes, 4096), bytes};
}

void SimulatedDramDevice::release(const Buffer& buffer) {
  std::lock_guard<std::mutex> lock(dram_mutex_);
  dram_.release(buffer.phys_addr);
}

void SimulatedDramDevice::write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "write");
  if (bytes == 0) return;  // memcpy needs valid pointers even for zero bytes
  std::lock_guard<std::mutex> lock(dram_mutex_);
  uint8_t* p = dram_.map(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("write to a buffer that is not allocated on this device");
  std::memcpy(p, data, bytes);
}

void SimulatedDramDevice::read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "read");
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(dram_mutex_);
  const uint8_t* p = dram_.map(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("read from a buffer that is not allocated on this device");
  std::memcpy(data, p, bytes);
}

void SimulatedDramDevice::launch(uint64_t insn_addr, uint32_t count) {
  // A run that timed out has been cancelled and stops within one loop
  // iteration, so it is waited for; a run still in progress is an error.
  if (!cancel_ && running_.valid() && running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    throw Error("launch while a program is still running on the " + backendName() + " device (wait for it first)");
  finishPrevious();
  cancel_ = false;
  running_ = std::async(std::launch::async, [this, insn_addr, count] {
    RunResult r;
    const auto start = std::chrono::steady_clock::now();
    try {
      std::lock_guard<std::mutex> lock(dram_mutex_);
      r = runProgram(insn_addr, count);
    } catch (const std::exception& e) {
      r.status = RunResult::Status::Error;
      r.message = e.what();
    }
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  });
}

RunResult SimulatedDramDevice::wait(std::chrono::milliseconds timeout) {
  if (!running_.valid()) throw Error("wait without a launched program");
  if (running_.wait_for(timeout) != std::future_status::ready) {
    cancel_ = true;
    RunResult r;
    r.status = RunResult::Status::Timeout;
    r.message = "program did not finish within " + std::to_string(timeout.count()) + " ms (cancelled)";
    return r;
  }
  return running_.get();
}

}  // namespace vdla::driver
