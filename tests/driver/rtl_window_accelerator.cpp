#include "rtl_window_accelerator.h"

#include "vdla/sim/dram.h"

namespace vdla::zynqtest {
namespace {

class RtlAccelerator : public WindowAccelerator {
 public:
  // Clock cycles per slice: short enough that small programs end promptly,
  // long enough that copying the ~50 status registers (a few cycles each)
  // stays a small part of the time.
  static constexpr uint64_t kCyclesPerSlice = 1024;

  RtlAccelerator(const hw::HwConfig& cfg, uint8_t* dma) {
    dram_.attach(kDmaPhys, dma, kDmaSize);
    port_ = std::make_unique<sim::CycleRegisterPort>(cfg, dram_);
  }
  uint32_t readRegister(uint32_t offset) override { return port_->read(offset); }
  void writeRegister(uint32_t offset, uint32_t value) override { port_->write(offset, value); }
  void reset() override { port_->reset(); }
  void advance() override { port_->step(kCyclesPerSlice); }

 private:
  sim::Dram dram_;
  std::unique_ptr<sim::CycleRegisterPort> port_;
};

}  // namespace

std::unique_ptr<WindowAccelerator> makeRtlAccelerator(const hw::HwConfig& cfg, uint8_t* dma) {
  return std::make_unique<RtlAccelerator>(cfg, dma);
}

}  // namespace vdla::zynqtest
