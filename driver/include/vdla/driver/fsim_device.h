#pragma once
// Device backend on the functional simulator. Programs run on a worker thread so
// that wait() honours its timeout; a timed-out run is cancelled at the next
// instruction boundary or loop iteration.
#include "vdla/driver/simulated_dram_device.h"
#include "vdla/sim/fsim.h"

namespace vdla::driver {

class FsimDevice : public SimulatedDramDevice {
 public:
  explicit FsimDevice(const hw::HwConfig& cfg);
  ~FsimDevice() override;

  std::string backendName() const override { return "fsim"; }

 private:
  RunResult runProgram(uint64_t insn_addr, uint32_t count) override;

  sim::FunctionalSimulator fsim_;
};

}  // namespace vdla::driver
