#pragma once
// Device backend on the cycle-accurate simulator (Verilated RTL in SystemC).
// Programs run on a worker thread so that wait() honours its timeout; a
// timed-out run is cancelled at the next status poll (a few thousand cycles).
// Only built when the cycle simulator is (VDLA_WITH_SYSTEMC).
#include "vdla/driver/simulated_dram_device.h"
#include "vdla/sim/cycle_sim.h"

namespace vdla::driver {

class CycleDevice : public SimulatedDramDevice {
 public:
  // A config without a built-in model gets one built on demand (see
  // vdla/sim/cycle_sim.h); throws vdla::Error if none can be had.
  CycleDevice(const hw::HwConfig& cfg, const DeviceOptions& options = {});
  ~CycleDevice() override;

  std::string backendName() const override { return "cycle"; }

  // Trace and waveform paths and the cycle limit of the following runs.
  void setOptions(const DeviceOptions& options);

 private:
  RunResult runProgram(uint64_t insn_addr, uint32_t count) override;

  sim::CycleSimulator sim_;
};

}  // namespace vdla::driver
