#pragma once
// The HLS C simulation as the accelerator behind a shared register window
// (zynq_window_bridge.h): its DRAM is the shared DMA file at kDmaPhys.
// Shared by the tests of the register-driven board backends (pynq, xrt).
#include <memory>

#include "vdla/hw/config.h"
#include "zynq_window_bridge.h"

namespace vdla::zynqtest {

std::unique_ptr<WindowAccelerator> makeCsimAccelerator(const hw::HwConfig& cfg, uint8_t* dma);

// A bridge serving the window with the C simulation of `cfg`.
struct CsimBridge : WindowBridge {
  CsimBridge(const hw::HwConfig& cfg, const SharedFiles& files)
      : WindowBridge(files, [&cfg](uint8_t* dma) { return makeCsimAccelerator(cfg, dma); }) {}
};

}  // namespace vdla::zynqtest
