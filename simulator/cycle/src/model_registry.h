#pragma once
// The Verilated models of this library: those built in, one per configuration
// (generated: model_<config>.cpp and model_registry.cpp in the build tree),
// and those built on demand for any other configuration (model_cache.h).
#include <functional>
#include <memory>
#include <vector>

#include "harness.h"

namespace vdla::sim {

using CycleModelFactory =
    std::function<std::unique_ptr<CycleHarness>(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing)>;

struct CycleModelEntry {
  const char* config_name;
  std::unique_ptr<CycleHarness> (*make)(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing);
};

const std::vector<CycleModelEntry>& cycleModels();

// The built-in model for `cfg` (matched by configuration hash), or nullptr.
const CycleModelEntry* findCycleModel(const hw::HwConfig& cfg);
// The model for `cfg`: the built-in one if there is one, else one built on
// demand (loaded from the cache, or built there first). Throws vdla::Error if
// neither can be had.
CycleModelFactory requireCycleModel(const hw::HwConfig& cfg);

}  // namespace vdla::sim
