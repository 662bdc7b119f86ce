// Finding the Verilated model of a configuration, shared by every public
// entry point of the cycle simulator so that they accept and refuse the same
// configs with the same message.
#include "model_cache.h"
#include "model_registry.h"
#include "vdla/hw/error.h"
#include "vdla/sim/cycle_sim.h"

namespace vdla::sim {

const CycleModelEntry* findCycleModel(const hw::HwConfig& cfg) {
  // The built-in models are fast ones; the checked variant is always built
  // on demand.
  if (cycleModelChecks()) return nullptr;
  // By hash rather than name: a config file edited after the build would
  // otherwise run on a model of different parameters.
  for (const CycleModelEntry& e : cycleModels()) {
    const std::string* text = hw::builtinConfigText(e.config_name);
    if (text && hw::parseConfig(*text, std::string("builtin:") + e.config_name).hash == cfg.hash) return &e;
  }
  return nullptr;
}

CycleModelFactory requireCycleModel(const hw::HwConfig& cfg) {
  if (const CycleModelEntry* e = findCycleModel(cfg)) return e->make;
  return loadOnDemandModel(cfg).make;
}

}  // namespace vdla::sim
