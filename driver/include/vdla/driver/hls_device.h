#pragma once
// Device backend on the C simulation of the HLS C++ (vdla_hw/hls). The host
// side talks to it only as a board driver talks to the hardware: it writes the
// instruction address and count into the AXI-Lite registers, reads them back,
// checks the configuration hash register, writes START and polls CTRL; errors
// and deadlocks are explained from the status registers. Programs run on a
// worker thread so that wait() honours its timeout.
#include <memory>

#include "vdla/driver/simulated_dram_device.h"
#include "vdla/hls/hls_csim.h"

namespace vdla::driver {

class HlsDevice : public SimulatedDramDevice {
 public:
  // Throws vdla::Error if the build has no C simulation for `cfg`.
  explicit HlsDevice(const hw::HwConfig& cfg);
  ~HlsDevice() override;

  std::string backendName() const override { return "hls"; }

 private:
  class DramAdapter : public hls::CsimDram {
   public:
    explicit DramAdapter(sim::Dram& dram) : dram_(dram) {}
    uint8_t* map(uint64_t addr, uint64_t bytes) override { return dram_.map(addr, bytes); }

   private:
    sim::Dram& dram_;
  };

  RunResult runProgram(uint64_t insn_addr, uint32_t count) override;

  DramAdapter adapter_;
  std::unique_ptr<hls::HlsCsim> csim_;
};

}  // namespace vdla::driver
