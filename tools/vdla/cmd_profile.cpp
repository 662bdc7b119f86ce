// vdla profile MODEL --device fsim|cycle --latency-hiding on,off: compiles the
// model for the accelerator once per latency-hiding mode, runs each on the
// device and reports every offloaded layer's cycles against the ideal
// (MACs / GEMM MACs per cycle) and its GEMM utilisation, the totals, and the
// speed-up from latency hiding; --svg draws the comparison. fsim has no
// timing, so there the cycles are the compiler's cost-model estimates.
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "accel_options.h"
#include "cli.h"
#include "model_loading.h"
#include "run_timeline.h"
#include "vdla/api/profile.h"
#include "vdla/compiler/compile.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/executor.h"
#include "vdla/runtime/image.h"
#include "vdla/runtime/imagenet.h"

namespace vdla::cli {

namespace {

std::vector<std::string> splitModes(const std::string& list) {
  std::vector<std::string> modes;
  std::stringstream ss(list);
  std::string m;
  while (std::getline(ss, m, ',')) {
    parseOnOff(m, "latency-hiding");
    modes.push_back(m == "on" || m == "true" || m == "1" ? "on" : "off");
  }
  if (modes.empty() || modes.size() > 2 || (modes.size() == 2 && modes[0] == modes[1]))
    throw UsageError("--latency-hiding takes on, off, or on,off");
  return modes;
}

}  // namespace

int profileCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla profile options");
  options.add_options()("model", po::value<std::string>()->required(), "ONNX file or zoo model name")(
      "latency-hiding", po::value<std::string>()->default_value("on,off"), "modes to compare: on, off or on,off")(
      "image", po::value<std::string>(), "JPEG or PNG image to run (default: a seeded synthetic input)")(
      "labels", po::value<std::string>(), "class names, one per line")(
      "svg", po::value<std::string>(), "write a bar chart of the cycles per layer")("json", "print the report as JSON");
  addConfigOption(options);
  addDeviceOption(options);
  addModelOptions(options);
  addAccelOptions(options, false);
  po::positional_options_description positional;
  positional.add("model", 1);
  po::variables_map vm;
  const std::string usage =
      "vdla profile MODEL [--device fsim|cycle] [--config HW] [--latency-hiding on,off] [--image FILE] [--calib DIR] "
      "[--svg FILE] [--json]";
  if (!parseArgs(usage, args, options, positional, vm)) return 0;
  const bool json = vm.count("json") != 0;
  const std::vector<std::string> modes = splitModes(vm["latency-hiding"].as<std::string>());
  const std::string spec = vm["model"].as<std::string>();
  const ModelKind kind = classifyModel(spec);
  if (kind == ModelKind::Artifact)
    throw Error(spec + ": profile compiles the model once per latency-hiding mode; give a model, not an artifact");
  std::unique_ptr<ir::Graph> graph = loadModelGraph(spec, kind, modelOptionsFrom(vm));
  const hw::HwConfig cfg = hw::loadConfig(vm["config"].as<std::string>());

  CompileOptions copts;
  applyAccelOptions(vm, *graph, copts, json);

  // The input, before the graph is quantised in place.
  const rt::TensorType in_type = graph->inputs().at(0)->type();
  api::ProfileOptions popts;
  popts.model_name = spec;
  popts.device = vm["device"].as<std::string>();
  popts.device_options = deviceOptionsForNetwork(vm);
  popts.latency_hiding.clear();
  for (const std::string& m : modes) popts.latency_hiding.push_back(m == "on");
  if (vm.count("image")) {
    rt::PreprocessOptions pre;
    pre.crop = static_cast<int>(in_type.shape.at(2));
    pre.resize = pre.crop * 256 / 224;
    popts.input = rt::preprocessImageNet(rt::loadImage(vm["image"].as<std::string>()), pre);
    if (popts.input.shape() != in_type.shape) throw Error("--image needs a model with a [1,3,S,S] input");
  }
  if (!json) popts.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  if (vm.count("trace")) {
    popts.on_mode_run = [&](const std::string& mode, const std::vector<rt::StepProfile>& steps) {
      // One timeline per mode: t.json becomes t.lh-on.json and t.lh-off.json.
      std::string path = vm["trace"].as<std::string>();
      if (modes.size() > 1) {
        const size_t dot = path.rfind('.');
        const std::string tag = ".lh-" + mode;
        path = dot == std::string::npos || path.find('/', dot) != std::string::npos
                   ? path + tag
                   : path.substr(0, dot) + tag + path.substr(dot);
      }
      const double clock = popts.device == "cycle" ? cfg.clock_mhz : 0.0;
      const size_t n = writeRunTimeline(path, steps, spec + ", latency hiding " + mode + ", on " + popts.device, clock);
      if (!json) std::cerr << "timeline: " << path << " (" << n << " events; open in ui.perfetto.dev)\n";
    };
  }
  const api::ProfileResult result = api::profileNetwork(*graph, cfg, copts, popts);
  const api::ProfileReport& report = result.report;
  const std::vector<rt::Tensor>& first_outputs = result.outputs;
  const bool identical = result.outputs_identical;

  // The classification (first output as scores), from the first mode.
  std::vector<std::string> labels;
  if (vm.count("labels")) labels = rt::loadClassLabels(vm["labels"].as<std::string>());
  nlohmann::json j = api::profileJson(report);
  std::ostringstream text;
  const rt::Tensor& scores = first_outputs.at(0);
  if (scores.dtype() == rt::DType::F32 && scores.shape().size() == 2) {
    nlohmann::json tops = nlohmann::json::array();
    text << "classification (" << (vm.count("image") ? vm["image"].as<std::string>() : "synthetic input") << "):\n";
    for (const auto& p : rt::topK(scores, 5, 0)) {
      const std::string label = p.index < static_cast<int64_t>(labels.size()) ? labels[p.index] : "";
      tops.push_back({{"index", p.index}, {"probability", p.probability}, {"label", label}});
      text << "  " << std::setw(5) << p.index << "  " << std::fixed << std::setprecision(4) << p.probability << "  "
           << label << "\n";
      text.unsetf(std::ios::floatfield);
    }
    j["top5"] = tops;
  }
  if (modes.size() == 2) {
    j["outputs_identical_across_modes"] = identical;
    text << "outputs with latency hiding on and off: " << (identical ? "bit-identical" : "DIFFERENT") << "\n";
  }
  text << api::profileTable(report);
  if (vm.count("svg")) {
    std::ofstream f(vm["svg"].as<std::string>());
    f << api::profileSvg(report);
    if (!f) throw Error(vm["svg"].as<std::string>() + ": cannot write");
    text << "wrote " << vm["svg"].as<std::string>() << "\n";
  }
  if (json)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << text.str();
  return identical ? 0 : 1;
}

}  // namespace vdla::cli
