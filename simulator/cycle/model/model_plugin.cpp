// The entry point of a cycle-accurate model built on demand
// (simulator/cycle/model/CMakeLists.txt): the same ScHarness as the built-in
// models (src/model.cpp.in), behind one C function that the loader finds with
// dlsym. The checked variant (VDLA_MODEL_CHECKS) wires the RTL's assertions
// to the harness's error through the runtime's printf (model_printf.h).
#include <cstdarg>
#include <cstdio>

#include "Vvdla_model.h"
#include "model_plugin.h"
#include "sc_harness.h"

#ifdef VDLA_MODEL_CHECKS
#include "model_printf.h"

namespace {
// The module is used under the simulator's SystemC mutex, one harness at a
// time, so one buffer serves all of its harnesses.
std::string& printed() {
  static std::string text;
  return text;
}
}  // namespace

void vdla_model_printf(const char* format, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  if (n > 0) printed().append(buf, size_t(n) < sizeof buf ? size_t(n) : sizeof buf - 1);
  // Bounded, should something print in every cycle.
  if (printed().size() > 65536) printed().erase(0, printed().size() - 65536);
}

std::string vdlaModelTakeOutput() {
  std::string text;
  text.swap(printed());
  return text;
}

namespace {
struct Checks {
  static std::string takeOutput() { return vdlaModelTakeOutput(); }
};
}  // namespace
#define VDLA_MODEL_HARNESS vdla::sim::ScHarness<Vvdla_model, VDLA_MODEL_AXI_BITS, Checks>
#define VDLA_MODEL_CHECKED 1u
#else
#define VDLA_MODEL_HARNESS vdla::sim::ScHarness<Vvdla_model, VDLA_MODEL_AXI_BITS>
#define VDLA_MODEL_CHECKED 0u
#endif

namespace {

vdla::sim::CycleHarness* createHarness(const vdla::hw::HwConfig& cfg, vdla::sim::Dram& dram,
                                       const vdla::sim::DramTiming& timing, uint32_t x_seed) {
  return new VDLA_MODEL_HARNESS(cfg, dram, timing, x_seed);
}

const vdla::sim::CycleModelPlugin kPlugin = {vdla::sim::kCycleModelPluginAbi, VDLA_MODEL_CONFIG_HASH,
                                             VDLA_MODEL_FINGERPRINT, VDLA_MODEL_CHECKED, createHarness};

}  // namespace

extern "C" const vdla::sim::CycleModelPlugin* vdla_cycle_model_plugin() { return &kPlugin; }
