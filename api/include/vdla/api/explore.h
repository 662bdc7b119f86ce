#pragma once
// A design-space exploration from start to report: the space enumerated and
// validated, the clock capped, the networks prepared once, every point
// evaluated (on the local cores, or by any other executor the caller gives),
// the Pareto front, optionally its fastest points confirmed on the
// cycle-accurate simulator and synthesised with yosys, the part's shipped
// configs evaluated as markers, and the JSON/CSV/SVG reports. The one
// implementation behind `vdla explore` and the Python module's vdla.explore.
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "vdla/api/model_source.h"
#include "vdla/compiler/compile.h"
#include "vdla/explore/design_point.h"
#include "vdla/explore/design_space.h"
#include "vdla/explore/device_confirmation.h"
#include "vdla/explore/explore_report.h"
#include "vdla/explore/sweep.h"

namespace vdla::api {

// Other executors for the three kinds of work (results in the order asked):
// the points (cost and resource models), the front's confirmations on the
// cycle-accurate simulator, and its yosys syntheses into a directory.
using PointEvaluator = std::function<std::vector<explore::PointResult>(
    const std::vector<explore::DesignPoint>& points, const std::vector<explore::NetworkWorkload>& networks,
    const explore::FpgaPart& part)>;
using PointConfirmer = std::function<std::vector<explore::Confirmation>(
    const std::vector<explore::DesignPoint>& points, const std::vector<explore::NetworkWorkload>& networks)>;
using ConfigSynthesiser =
    std::function<std::vector<nlohmann::json>(const std::vector<hw::HwConfig>& configs, const std::string& dir)>;

struct ExploreOptions {
  explore::DesignSpace space;
  std::vector<std::string> networks = {"resnet18"};  // ONNX files or zoo names
  ModelOptions model_options;
  // Compile options for preparing the networks (quantisation, layer forms);
  // target and config are set here. `configure_compile`, when given, adds
  // what depends on each network's graph (its calibration samples).
  CompileOptions compile_options;
  std::function<void(const ir::Graph& graph, CompileOptions& options)> configure_compile;
  std::optional<double> clock_cap_mhz;  // default: the vendor DPU's clock on the part
  // What the front ranks by: the accelerator's latency, or end to end with
  // the board CPU's share (explore::Objective).
  explore::Objective objective = explore::Objective::Accelerator;
  // The local sweep's threads and cache (SweepOptions::cache_path, "" : none).
  explore::SweepOptions sweep;
  // Other executors (empty: the local sweep; confirmations and syntheses one
  // after another here).
  PointEvaluator evaluate;
  PointConfirmer confirm_points;
  ConfigSynthesiser synthesise_configs;
  int confirm = 0;        // front points, fastest first, confirmed on the cycle simulator
  int yosys = 0;          // front points synthesised with yosys
  std::string yosys_dir;  // where their configs and reports go (required with yosys > 0)
  // Configs to mark on the chart; empty: the shipped configs of the part.
  std::vector<std::string> marks;
  std::function<void(const std::string& line)> progress;
};

struct ExploreResult {
  hw::HwConfig base;
  explore::FpgaPart part;
  double clock_cap_mhz = 0;
  std::vector<explore::NetworkWorkload> networks;
  std::vector<explore::PointResult> results;  // every valid point, in the space's order
  std::vector<size_t> front;                  // indices into results, by DSP
  std::vector<explore::RefusedPoint> refused;
  std::map<size_t, explore::Confirmation> confirmed;
  std::map<size_t, nlohmann::json> synthesised;
  std::vector<explore::ChartMarker> markers;
  explore::SweepStats stats;
  // results.json (everything above), results.csv and pareto.svg.
  nlohmann::json document;
  std::string csv, svg;
};

// Throws vdla::Error for an empty space, bad networks or failed runs.
ExploreResult runExplore(const ExploreOptions& options);

// The networks of an exploration, optimised and quantised once for `base`.
// Network names are the files' stems ("mobilenetv2" for a path).
std::vector<explore::NetworkWorkload> prepareNetworks(const ExploreOptions& options);

// Runs scripts/hw/resources.sh (from the source tree, or $VDLA_SOURCE_DIR) on
// a config written into `dir` and returns what yosys counted (lut, ff, dsp,
// bram36, fits, seconds). Both verdicts are measurements; anything else is an
// error.
nlohmann::json synthesiseWithYosys(const hw::HwConfig& cfg, const std::string& dir, bool quiet);

// The JSON of a confirmation on the cycle simulator, and back.
nlohmann::json confirmationJson(const explore::Confirmation& confirmation);
explore::Confirmation confirmationFromJson(const nlohmann::json& j);

}  // namespace vdla::api
