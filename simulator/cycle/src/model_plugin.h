#pragma once
// The interface between the simulator and a cycle-accurate model built on
// demand (simulator/cycle/model): the loadable module exports
//
//   extern "C" const CycleModelPlugin* vdla_cycle_model_plugin();
//
// and the loader (model_cache.cpp) checks the ABI version, the config hash and
// the fingerprint of the model kit before it creates a harness, so that a
// module built for another config, or from other RTL or harness sources, is
// refused rather than run.
#include <cstdint>

#include "harness.h"

namespace vdla::sim {

// Raised whenever the struct below or the way the harness is handed over changes.
constexpr uint32_t kCycleModelPluginAbi = 2;

struct CycleModelPlugin {
  uint32_t abi;
  uint64_t config_hash;
  const char* kit_fingerprint;
  // 1 for the checked variant (assertions on, random X initialisation).
  uint32_t checked;
  // A new harness; the caller owns it (its virtual destructor runs the
  // module's code, so the module is never unloaded). `x_seed` (at least 1)
  // seeds the random initial values of a checked model; the fast one
  // ignores it.
  CycleHarness* (*create)(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing, uint32_t x_seed);
};

}  // namespace vdla::sim

extern "C" {
using VdlaCycleModelPluginFn = const vdla::sim::CycleModelPlugin* (*)();
}
