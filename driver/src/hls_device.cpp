#include "vdla/driver/hls_device.h"

#include <cstring>
#include <sstream>

#include "register_status.h"
#include "vdla/hw/error.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/hw/registers.h"

namespace vdla::driver {
namespace {

namespace regs = hw::regs;

// Scheduling rounds between two looks at the cancel flag: a few milliseconds.
constexpr uint64_t kRoundsPerSlice = 2048;

}  // namespace

HlsDevice::HlsDevice(const hw::HwConfig& cfg)
    : cfg_(cfg), dram_(), adapter_(dram_), csim_(hls::createHlsCsim(cfg_, adapter_)) {}

HlsDevice::~HlsDevice() {
  cancel_ = true;
  finishPrevious();
}

void HlsDevice::finishPrevious() {
  if (running_.valid()) running_.wait();
  running_ = {};
}

Buffer HlsDevice::allocate(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(dram_mutex_);
  return Buffer{dram_.allocate(bytes, 4096), bytes};
}

void HlsDevice::release(const Buffer& buffer) {
  std::lock_guard<std::mutex> lock(dram_mutex_);
  dram_.release(buffer.phys_addr);
}

void HlsDevice::write(const Buffer& buffer, uint64_t offset, const void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "write");
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(dram_mutex_);
  uint8_t* p = dram_.map(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("write to a buffer that is not allocated on this device");
  std::memcpy(p, data, bytes);
}

void HlsDevice::read(const Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) {
  checkBufferRange(buffer, offset, bytes, "read");
  if (bytes == 0) return;
  std::lock_guard<std::mutex> lock(dram_mutex_);
  const uint8_t* p = dram_.map(buffer.phys_addr + offset, bytes);
  if (!p) throw Error("read from a buffer that is not allocated on this device");
  std::memcpy(data, p, bytes);
}

// The register protocol of every driver of the hardware: reset, check the
// configuration hash, program address and count (read back), START, poll.
RunResult HlsDevice::runProgram(uint64_t insn_addr, uint32_t count) {
  RunResult r;
  csim_->reset();

  auto reg = [this](uint32_t offset) { return csim_->readRegister(offset); };
  startThroughRegisters(cfg_, reg, [this](uint32_t offset, uint32_t value) { csim_->writeRegister(offset, value); },
                        insn_addr, count);
  auto insn = [this, insn_addr](uint32_t index, uint8_t bytes[16]) {
    const uint8_t* p = dram_.map(insn_addr + uint64_t(index) * hw::kInstructionBytes, hw::kInstructionBytes);
    if (!p) return false;
    std::memcpy(bytes, p, hw::kInstructionBytes);
    return true;
  };
  while (true) {
    if (cancel_.load(std::memory_order_relaxed)) throw Error("run cancelled");
    const hls::HlsCsim::Progress progress = csim_->step(kRoundsPerSlice, &cancel_);
    if (progress == hls::HlsCsim::Progress::Cancelled) throw Error("run cancelled");
    if (progress == hls::HlsCsim::Progress::Running) continue;
    if (progress == hls::HlsCsim::Progress::Stuck) throw Error(describeDeadlock(cfg_, reg, insn));
    break;
  }
  const uint32_t ctrl = csim_->readRegister(regs::kCtrl);
  if (ctrl & regs::kCtrlError) throw Error(describeRegisterError(cfg_, reg, insn));
  if (!(ctrl & regs::kCtrlDone)) throw Error("the accelerator stopped without DONE or ERROR (CTRL = " + std::to_string(ctrl) + ")");
  r.stats = statsAfterRun(cfg_, reg, dram_.map(insn_addr, uint64_t(count) * hw::kInstructionBytes), count);
  return r;
}

void HlsDevice::launch(uint64_t insn_addr, uint32_t count) {
  if (!cancel_ && running_.valid() && running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    throw Error("launch while a program is still running on the hls device (wait for it first)");
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

RunResult HlsDevice::wait(std::chrono::milliseconds timeout) {
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
