#include "vdla/driver/fsim_device.h"

namespace vdla::driver {

FsimDevice::FsimDevice(const hw::HwConfig& cfg) : SimulatedDramDevice(cfg), fsim_(cfg_, dram_) {}

FsimDevice::~FsimDevice() { cancelAndFinish(); }

RunResult FsimDevice::runProgram(uint64_t insn_addr, uint32_t count) {
  RunResult r;
  r.stats = fsim_.run(insn_addr, count, &cancel_);
  return r;
}

}  // namespace vdla::driver
