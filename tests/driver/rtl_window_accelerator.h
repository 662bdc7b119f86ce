#pragma once
// The cycle-accurate RTL as the accelerator behind a shared register window
// (zynq_window_bridge.h): its AXI-Lite slave, the accelerator's real
// register block, is reached through CycleRegisterPort, and its DRAM is the
// shared DMA file itself (attached to a sim::Dram, not copied), so data the
// driver writes is what the accelerator's AXI bursts read. Built only with
// the cycle simulator; shared by the pynq and xrt backend tests.
#include <memory>

#include "vdla/hw/config.h"
#include "vdla/sim/cycle_register_port.h"
#include "vdla/sim/cycle_sim.h"
#include "zynq_window_bridge.h"

namespace vdla::zynqtest {

std::unique_ptr<WindowAccelerator> makeRtlAccelerator(const hw::HwConfig& cfg, uint8_t* dma);

struct CycleBridge : WindowBridge {
  CycleBridge(const hw::HwConfig& cfg, const SharedFiles& files)
      : WindowBridge(files, [&cfg](uint8_t* dma) { return makeRtlAccelerator(cfg, dma); }) {}
};

}  // namespace vdla::zynqtest

// The tiny config (the fastest RTL), or a skip if this build has no model of it.
#define REQUIRE_TINY_MODEL(cfg)                  \
  const auto cfg = vdla::hw::loadConfig("tiny"); \
  if (!vdla::sim::cycleSimSupports(cfg)) GTEST_SKIP() << "no cycle-accurate model of tiny in this build"
