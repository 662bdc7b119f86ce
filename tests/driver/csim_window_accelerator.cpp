#include "csim_window_accelerator.h"

#include "vdla/hls/hls_csim.h"

namespace vdla::zynqtest {
namespace {

class CsimAccelerator : public WindowAccelerator, public hls::CsimDram {
 public:
  CsimAccelerator(const hw::HwConfig& cfg, uint8_t* dma) : dma_(dma), csim_(hls::createHlsCsim(cfg, *this)) {}
  uint8_t* map(uint64_t addr, uint64_t bytes) override {
    if (addr < kDmaPhys || addr + bytes > kDmaPhys + kDmaSize) return nullptr;
    return dma_ + (addr - kDmaPhys);
  }
  uint32_t readRegister(uint32_t offset) override { return csim_->readRegister(offset); }
  void writeRegister(uint32_t offset, uint32_t value) override { csim_->writeRegister(offset, value); }
  void reset() override { csim_->reset(); }
  void advance() override { csim_->step(256); }

 private:
  uint8_t* dma_;
  std::unique_ptr<hls::HlsCsim> csim_;
};

}  // namespace

std::unique_ptr<WindowAccelerator> makeCsimAccelerator(const hw::HwConfig& cfg, uint8_t* dma) {
  return std::make_unique<CsimAccelerator>(cfg, dma);
}

}  // namespace vdla::zynqtest
