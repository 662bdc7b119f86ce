// The entry point of a cycle-accurate model built on demand
// (simulator/cycle/model/CMakeLists.txt): the same ScHarness as the built-in
// models (src/model.cpp.in), behind one C function that the loader finds with
// dlsym.
#include "Vvdla_model.h"
#include "model_plugin.h"
#include "sc_harness.h"

namespace {

vdla::sim::CycleHarness* createHarness(const vdla::hw::HwConfig& cfg, vdla::sim::Dram& dram,
                                       const vdla::sim::DramTiming& timing) {
  return new vdla::sim::ScHarness<Vvdla_model, VDLA_MODEL_AXI_BITS>(cfg, dram, timing);
}

const vdla::sim::CycleModelPlugin kPlugin = {vdla::sim::kCycleModelPluginAbi, VDLA_MODEL_CONFIG_HASH,
                                             VDLA_MODEL_FINGERPRINT, createHarness};

}  // namespace

extern "C" const vdla::sim::CycleModelPlugin* vdla_cycle_model_plugin() { return &kPlugin; }
