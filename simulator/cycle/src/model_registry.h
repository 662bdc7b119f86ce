#pragma once
// The Verilated models built into this library, one per configuration
// (generated: model_<config>.cpp and model_registry.cpp in the build tree).
#include <memory>
#include <vector>

#include "harness.h"

namespace vdla::sim {

struct CycleModelEntry {
  const char* config_name;
  std::unique_ptr<CycleHarness> (*make)(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing);
};

const std::vector<CycleModelEntry>& cycleModels();

}  // namespace vdla::sim
