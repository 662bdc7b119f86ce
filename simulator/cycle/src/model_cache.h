#pragma once
// Cycle-accurate models built on demand for configs that have no model built
// into vdla_cycle_sim: generated, Verilated, compiled into a loadable module
// and cached by configuration hash and model-kit fingerprint (see
// docs/hardware.md, "Models built on demand").
#include <string>

#include "model_registry.h"
#include "vdla/sim/cycle_sim.h"

namespace vdla::sim {

// True when $VDLA_CYCLE_MODEL_CHECKS asks for the checked model (1/on/yes/
// true): the RTL with its assertions on and random X initialisation, built on
// demand even for configs with a built-in model and cached apart from the fast
// one. Throws vdla::Error for a value that is neither on nor off.
bool cycleModelChecks();
// The seed of the checked model's random initial values: $VDLA_CYCLE_MODEL_SEED
// (1 to 2^31-1), default 1. Read whenever a harness is made.
uint32_t cycleModelXSeed();

// The folder `cfg`'s model (the checked one under VDLA_CYCLE_MODEL_CHECKS)
// has, or will have, in the cache.
std::string cycleModelDir(const hw::HwConfig& cfg);

// The model kit of this build (what models are built from unless
// $VDLA_CYCLE_MODEL_KIT names a copy of it, for instance with modified RTL).
std::string cycleModelBuildKit();

// False when $VDLA_CYCLE_MODEL_BUILD is 0/off/no/false: a model that is not
// in the cache is then refused instead of built.
bool cycleModelBuildEnabled();

// True if `cfg`'s model is in the cache (loadable without building).
bool cycleModelCached(const hw::HwConfig& cfg);

struct OnDemandModel {
  CycleModelFactory make;
  std::string path;    // the loadable module
  bool built = false;  // true if this call built it (false: found in the cache)
};

// Loads `cfg`'s model from the cache, building it first if it is not there
// (progress on stderr). Safe against other processes building the same model
// at once: they take turns on a lock file, and a model appears in the cache
// only once complete. Throws vdla::Error naming the log file if the build
// fails, and when building is switched off or a tool is missing.
OnDemandModel loadOnDemandModel(const hw::HwConfig& cfg);

}  // namespace vdla::sim
