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

// The model built for `cfg` (matched by configuration hash), or nullptr.
const CycleModelEntry* findCycleModel(const hw::HwConfig& cfg);
// The same, but a config without a model is a vdla::Error that names the
// configs this build has models for.
const CycleModelEntry& requireCycleModel(const hw::HwConfig& cfg);

}  // namespace vdla::sim
