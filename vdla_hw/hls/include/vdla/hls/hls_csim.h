#pragma once
// The C simulation of the HLS C++ (vdla_hw/hls), compiled with g++ once per
// configuration. It is the accelerator as a host sees it: a register window
// with the map of docs/hardware.md and DRAM reached through physical
// addresses. step() runs scheduling rounds of the four modules; the `hls`
// Device backend (driver/) drives it exactly as a board driver drives the
// hardware.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vdla/hw/config.h"

namespace vdla::hls {

// The DRAM the simulated AXI master reaches.
class CsimDram {
 public:
  virtual ~CsimDram() = default;
  // Host pointer for [addr, addr+bytes), or nullptr if the range is not inside
  // one allocated buffer (the access then gets an AXI error response).
  virtual uint8_t* map(uint64_t addr, uint64_t bytes) = 0;
};

class HlsCsim {
 public:
  virtual ~HlsCsim() = default;
  virtual uint32_t readRegister(uint32_t offset) const = 0;
  virtual void writeRegister(uint32_t offset, uint32_t value) = 0;

  enum class Progress {
    Idle,       // not running (done, stopped with an error, or never started)
    Running,    // the last round changed the state
    Stuck,      // running, but the last round changed nothing: no module can progress
    Cancelled,  // `cancel` became true; the run is abandoned (reset() before the next)
  };
  // The accelerator's reset: stops a run and clears the registers, queues and
  // tokens; the on-chip memories keep their contents, as in hardware.
  virtual void reset() = 0;
  // Runs up to `rounds` scheduling rounds (one step of every module each).
  // A long instruction polls `cancel` once per loop iteration.
  virtual Progress step(uint64_t rounds, const std::atomic<bool>* cancel = nullptr) = 0;
};

// Configs with a compiled C simulation (CMake option VDLA_HLS_CONFIGS).
std::vector<std::string> hlsCsimConfigs();

// Throws vdla::Error if the build has no C simulation for `cfg.name`, or if it
// was generated from a configuration with another hash.
std::unique_ptr<HlsCsim> createHlsCsim(const hw::HwConfig& cfg, CsimDram& dram);

}  // namespace vdla::hls
