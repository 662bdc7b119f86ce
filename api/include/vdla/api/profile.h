#pragma once
// Profiling a network on the accelerator: compiled once per latency-hiding
// mode, run on a device, every offloaded layer's cycles (measured on timing
// devices, the cost model's estimate on fsim) against the ideal. The one
// implementation behind `vdla profile` and the Python module's vdla.profile.
#include <functional>
#include <string>
#include <vector>

#include "vdla/api/profile_report.h"
#include "vdla/compiler/compile.h"
#include "vdla/driver/device.h"
#include "vdla/runtime/executor.h"

namespace vdla::api {

struct ProfileOptions {
  // The modes, in order: true = latency hiding on. One or two distinct ones.
  std::vector<bool> latency_hiding = {true, false};
  std::string device = "fsim";           // a driver backend name
  driver::DeviceOptions device_options;  // e.g. record_activity for timelines
  std::string model_name;                // for the report
  // The network's input; empty: the seeded synthetic input of its type.
  rt::Tensor input;
  // After each mode's run: its name ("on"/"off") and the run's step profiles.
  std::function<void(const std::string& mode, const std::vector<rt::StepProfile>& steps)> on_mode_run;
  // Before each mode's run: a line saying what runs.
  std::function<void(const std::string& line)> progress;
};

struct ProfileResult {
  ProfileReport report;
  std::vector<rt::Tensor> outputs;  // of the first mode
  // With two modes: whether both gave the same output bytes (they must).
  bool outputs_identical = true;
};

// "on"/"off".
std::string latencyHidingModeName(bool on);

// Compiles `graph` (optimised and quantised in place by the first
// compilation) for target vdla on `cfg` with `compile_options` (target and
// config are set here) once per mode and runs each on a fresh device.
// Throws vdla::Error on bad options; compile and run errors pass through.
ProfileResult profileNetwork(ir::Graph& graph, const hw::HwConfig& cfg, CompileOptions compile_options,
                             const ProfileOptions& options);

}  // namespace vdla::api
