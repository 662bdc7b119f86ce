#include "vdla/driver/cycle_device.h"

namespace vdla::driver {
namespace {

sim::CycleSimOptions simOptions(const DeviceOptions& o) {
  sim::CycleSimOptions s;
  if (o.max_cycles) s.max_cycles = o.max_cycles;
  s.trace_path = o.trace_path;
  s.waves_path = o.waves_path;
  s.record_activity = o.record_activity;
  return s;
}

}  // namespace

CycleDevice::CycleDevice(const hw::HwConfig& cfg, const DeviceOptions& options)
    : SimulatedDramDevice(cfg), sim_(cfg_, dram_, simOptions(options)) {}

CycleDevice::~CycleDevice() { cancelAndFinish(); }

void CycleDevice::setOptions(const DeviceOptions& options) {
  finishPrevious();
  sim_.setOptions(simOptions(options));
}

RunResult CycleDevice::runProgram(uint64_t insn_addr, uint32_t count) {
  RunResult r;
  r.stats = sim_.run(insn_addr, count, &cancel_);
  return r;
}

}  // namespace vdla::driver
