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
    : SimulatedDramDevice(cfg), adapter_(dram_), csim_(hls::createHlsCsim(cfg_, adapter_)) {}

HlsDevice::~HlsDevice() { cancelAndFinish(); }

// The register protocol of every driver of the hardware: reset, check the
// configuration hash, program address and count (read back), START, poll.
RunResult HlsDevice::runProgram(uint64_t insn_addr, uint32_t count) {
  RunResult r;
  csim_->reset();

  auto reg = [this](uint32_t offset) { return csim_->readRegister(offset); };
  startThroughRegisters(
      cfg_, reg, [this](uint32_t offset, uint32_t value) { csim_->writeRegister(offset, value); }, insn_addr, count);
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
  if (!(ctrl & regs::kCtrlDone))
    throw Error("the accelerator stopped without DONE or ERROR (CTRL = " + std::to_string(ctrl) + ")");
  r.stats = statsAfterRun(cfg_, reg, dram_.map(insn_addr, uint64_t(count) * hw::kInstructionBytes), count);
  return r;
}

}  // namespace vdla::driver
