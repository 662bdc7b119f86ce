#include "vdla/driver/cycle_device.h"

#include <cstring>

#include "vdla/hw/error.h"

namespace vdla::driver {
namespace {

sim::CycleSimOptions simOptions(const DeviceOptions& o) {
  sim::CycleSimOptions s;
  if (o.max_cycles) s.max_cycles = o.max_cycles;
  s.trace_path = o.trace_path;
  s.waves_path = o.waves_path;
  return s;
}

}  // namespace

CycleDevice::CycleDevice(const hw::HwConfig& cfg, const DeviceOptions& options)
    : cfg_(cfg), dram_(), sim_(cfg_, dram_, simOptions(options)) {}

CycleDevice::~CycleDevice() {
  cancel_ = true;
  finishPrevious();
}

void CycleDevice::setOptions(const DeviceOptions& options) {
  finishPrevious();
  sim_.setOptions(simOptions(options));
}

void CycleDevice::finishPrevious() {
  if (running_.valid()) running_.wait();
  running_ = {};
}

Buffer CycleDevice::allocate(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(dram_mutex_);
  return Buffer{dram_.allocate(bytes, 4096), bytes};
}

void CycleDevice::release(const Buffer& buffer) {
  std::lock_guard<std::mutex> lock(dram_mutex_);
  dram_.release(buffer.phys_addr);
}

void CycleDevice::write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "write");
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(dram_mutex_);
  uint8_t* p = dram_.map(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("write to a buffer that is not allocated on this device");
  std::memcpy(p, data, bytes);
}

void CycleDevice::read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "read");
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(dram_mutex_);
  const uint8_t* p = dram_.map(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("read from a buffer that is not allocated on this device");
  std::memcpy(data, p, bytes);
}

void CycleDevice::launch(uint64_t insn_addr, uint32_t count) {
  if (!cancel_ && running_.valid() && running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    throw Error("launch while a program is still running on the cycle device (wait for it first)");
  finishPrevious();
  cancel_ = false;
  running_ = std::async(std::launch::async, [this, insn_addr, count] {
    RunResult r;
    auto start = std::chrono::steady_clock::now();
    try {
      std::lock_guard<std::mutex> lock(dram_mutex_);
      r.stats = sim_.run(insn_addr, count, &cancel_);
    } catch (const std::exception& e) {
      r.status = RunResult::Status::Error;
      r.message = e.what();
    }
    r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
  });
}

RunResult CycleDevice::wait(std::chrono::milliseconds timeout) {
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
