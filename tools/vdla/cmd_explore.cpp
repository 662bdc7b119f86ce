// vdla explore: sweeps a design space of accelerator configurations for one
// or more networks on the base config's FPGA part. Per point: latency and MAC
// utilisation per network (the compiler's cost model), LUT/FF/DSP/BRAM (the
// calibrated resource model) and whether it fits. Writes results.json,
// results.csv and pareto.svg (latency against DSP, the front and the shipped
// configs of the part marked), and resumes from cache.jsonl in the output
// directory.
#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include <unistd.h>

#include "accel_options.h"
#include "cli.h"
#include "model_loading.h"
#include "vdla/api/explore.h"
#include "vdla/explore/design_space.h"
#include "vdla/explore/device_confirmation.h"
#include "vdla/explore/explore_report.h"
#include "vdla/explore/pareto.h"
#include "vdla/explore/resource_model.h"
#include "vdla/explore/result_json.h"
#include "vdla/explore/sweep.h"
#include "vdla/hw/error.h"

namespace vdla::cli {

namespace {

template <typename T>
std::vector<T> parseList(const std::string& text, const std::string& option) {
  std::vector<T> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::istringstream is(item);
    T v{};
    if (!(is >> v) || !is.eof()) throw UsageError("--" + option + ": '" + item + "' is not a number");
    out.push_back(v);
  }
  if (out.empty()) throw UsageError("--" + option + " needs a comma-separated list of values");
  return out;
}

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw Error(path.string() + ": cannot write");
}

// The resource model against the yosys runs it is fitted to: per point the
// measurement, the fit, and the prediction of a model fitted without it.
int printCalibration(bool json) {
  const auto& points = explore::builtinCalibrationPoints();
  const auto residuals = explore::calibrationResiduals(points);
  const char* names[] = {"lut", "ff", "dsp", "bram36"};
  auto get = [](const explore::ResourceEstimate& r, int k) {
    return k == 0 ? r.lut : k == 1 ? r.ff : k == 2 ? r.dsp : r.bram36;
  };
  nlohmann::json doc = nlohmann::json::array();
  double sum_fit[4] = {}, sum_loo[4] = {};
  std::ostringstream text;
  text << "resource model on " << points.size() << " yosys runs (explore/data/resource_calibration.json):\n";
  text << "  " << std::left << std::setw(26) << "config" << std::right;
  for (const char* n : names) text << std::setw(27) << std::string(n) + " meas/fit/loo";
  text << "\n";
  for (const auto& r : residuals) {
    nlohmann::json j = {{"config", r.config}, {"family", r.family}};
    text << "  " << std::left << std::setw(26) << r.config << std::right;
    for (int k = 0; k < 4; ++k) {
      const double m = get(r.measured, k), f = get(r.in_sample, k), l = get(r.leave_one_out, k);
      j[names[k]] = {{"measured", m}, {"fit", f}, {"leave_one_out", l}};
      sum_fit[k] += m > 0 ? std::fabs(f - m) / m : 0;
      sum_loo[k] += m > 0 ? std::fabs(l - m) / m : 0;
      text << std::setw(27)
           << fixed(m, k == 3 ? 1 : 0) + "/" + fixed(f, k == 3 ? 1 : 0) + "/" + fixed(l, k == 3 ? 1 : 0);
    }
    text << "\n";
    doc.push_back(j);
  }
  text << "  mean |error|: ";
  for (int k = 0; k < 4; ++k)
    text << names[k] << " " << fixed(100 * sum_fit[k] / double(residuals.size()), 1) << "% fit, "
         << fixed(100 * sum_loo[k] / double(residuals.size()), 1) << "% leave-one-out" << (k < 3 ? "; " : "\n");
  if (json)
    std::cout << doc.dump(2) << "\n";
  else
    std::cout << text.str();
  return 0;
}

}  // namespace

int exploreCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla explore options");
  options.add_options()("network", po::value<std::vector<std::string>>(),
                        "ONNX file or zoo model (repeatable; default resnet18)")(
      "space", po::value<std::string>(),
      "design space JSON (see docs/explore.md); the flags below override its fields")(
      "base", po::value<std::string>(), "base config: part and unswept fields (default: the space's, else pynq)")(
      "gemm-batch", po::value<std::string>(), "GEMM batch values, e.g. 1,2 (--batch is the model's)")(
      "block-in", po::value<std::string>(), "GEMM block_in values, e.g. 16,32")("block-out", po::value<std::string>(),
                                                                                "GEMM block_out values")(
      "input-kib", po::value<std::string>(), "INP buffer sizes (KiB)")("weight-kib", po::value<std::string>(),
                                                                       "WGT buffer sizes (KiB)")(
      "acc-kib", po::value<std::string>(), "ACC buffer sizes (KiB; OUT follows)")("uop-kib", po::value<std::string>(),
                                                                                  "UOP buffer sizes (KiB)")(
      "axi-bits", po::value<std::string>(), "AXI data widths")("clock-mhz", po::value<std::string>(), "clocks (MHz)")(
      "depthwise-taps", po::value<std::string>(),
      "DWGEMM windows, e.g. 0,3,5 (0: without; default: the base's where the array holds it)")(
      "latency-hiding", po::value<std::string>(), "on, off or on,off")(
      "acc-dual-read", po::value<std::string>(),
      "the second ACC read port (extension acc_dual_read): on, off or on,off (default: the base's)")(
      "ultraram", po::value<std::string>(),
      "buffers synthesis places in UltraRAM, per value: none or names joined by +, e.g. "
      "none,accumulator+input+output+uop (default: the base's)")(
      "clock-cap", po::value<double>(), "highest clock to consider (default: the vendor DPU's clock on the part)")(
      "objective", po::value<std::string>()->default_value("accelerator"),
      "what the front ranks by: accelerator (its latency) or end-to-end (plus the board CPU's share)")(
      "out", po::value<std::string>(), "output directory (default explore-<base>)")(
      "threads", po::value<unsigned>()->default_value(0), "worker threads (0: every core)")(
      "fresh", "ignore and replace the output directory's cache")(
      "mark", po::value<std::vector<std::string>>(),
      "configs to mark on the chart (default: shipped configs of the part)")(
      "confirm", po::value<int>()->default_value(0),
      "run the N fastest points of the Pareto front on the cycle-accurate simulator (models built on first use) and "
      "compare with the cost model")(
      "yosys", po::value<int>()->default_value(0),
      "synthesise the N fastest points of the Pareto front with yosys (scripts/hw/resources.sh; minutes each) and "
      "compare with the resource model")("calibration",
                                         "print the resource model's error on its yosys calibration data, and exit")(
      "json", "print the summary as JSON")("quiet", "no progress on stderr");
  addModelOptions(options);
  addAccelOptions(options, false);
  po::variables_map vm;
  const std::string usage =
      "vdla explore [--network M]... [--space FILE] [--base CONFIG] [--block-in 16,32] [--block-out ...] "
      "[--weight-kib ...] [--axi-bits ...] [--clock-mhz ...] [--latency-hiding on,off] [--out DIR]";
  if (!parseArgs(usage, args, options, po::positional_options_description(), vm)) return 0;
  const bool json = vm.count("json") != 0, quiet = vm.count("quiet") != 0 || json;
  if (vm.count("calibration")) return printCalibration(json);

  explore::DesignSpace space;
  if (vm.count("space")) {
    const std::string path = vm["space"].as<std::string>();
    std::ifstream in(path);
    if (!in) throw Error(path + ": cannot open design space file");
    std::stringstream ss;
    ss << in.rdbuf();
    space = explore::parseDesignSpace(ss.str(), path);
  }
  if (vm.count("base")) space.base = vm["base"].as<std::string>();
  if (vm.count("gemm-batch")) space.batch = parseList<uint32_t>(vm["gemm-batch"].as<std::string>(), "gemm-batch");
  if (vm.count("block-in")) space.block_in = parseList<uint32_t>(vm["block-in"].as<std::string>(), "block-in");
  if (vm.count("block-out")) space.block_out = parseList<uint32_t>(vm["block-out"].as<std::string>(), "block-out");
  if (vm.count("input-kib")) space.input_kib = parseList<uint64_t>(vm["input-kib"].as<std::string>(), "input-kib");
  if (vm.count("weight-kib")) space.weight_kib = parseList<uint64_t>(vm["weight-kib"].as<std::string>(), "weight-kib");
  if (vm.count("acc-kib")) space.acc_kib = parseList<uint64_t>(vm["acc-kib"].as<std::string>(), "acc-kib");
  if (vm.count("uop-kib")) space.uop_kib = parseList<uint64_t>(vm["uop-kib"].as<std::string>(), "uop-kib");
  if (vm.count("axi-bits")) space.axi_bits = parseList<uint32_t>(vm["axi-bits"].as<std::string>(), "axi-bits");
  if (vm.count("clock-mhz")) space.clock_mhz = parseList<double>(vm["clock-mhz"].as<std::string>(), "clock-mhz");
  if (vm.count("depthwise-taps"))
    space.depthwise_taps = parseList<uint32_t>(vm["depthwise-taps"].as<std::string>(), "depthwise-taps");
  if (vm.count("acc-dual-read")) {
    space.acc_dual_read.clear();
    std::stringstream ss(vm["acc-dual-read"].as<std::string>());
    std::string m;
    while (std::getline(ss, m, ',')) space.acc_dual_read.push_back(parseOnOff(m, "acc-dual-read"));
  }
  if (vm.count("ultraram")) {
    space.ultraram.clear();
    std::stringstream ss(vm["ultraram"].as<std::string>());
    std::string value;
    while (std::getline(ss, value, ',')) {
      std::vector<std::string> names;
      std::stringstream vs(value);
      std::string name;
      while (std::getline(vs, name, '+'))
        if (value != "none") names.push_back(name);
      space.ultraram.push_back(names);
    }
  }
  if (vm.count("latency-hiding")) {
    space.latency_hiding.clear();
    std::stringstream ss(vm["latency-hiding"].as<std::string>());
    std::string m;
    while (std::getline(ss, m, ',')) space.latency_hiding.push_back(parseOnOff(m, "latency-hiding"));
  }

  api::ExploreOptions eopts;
  eopts.space = space;
  if (vm.count("network")) eopts.networks = vm["network"].as<std::vector<std::string>>();
  eopts.model_options = modelOptionsFrom(vm);
  eopts.configure_compile = [&](const ir::Graph& graph, CompileOptions& copts) {
    applyAccelOptions(vm, graph, copts, quiet);
  };
  if (vm.count("clock-cap")) eopts.clock_cap_mhz = vm["clock-cap"].as<double>();
  eopts.objective = explore::parseObjective(vm["objective"].as<std::string>());
  eopts.confirm = vm["confirm"].as<int>();
  eopts.yosys = vm["yosys"].as<int>();
  if (eopts.confirm < 0) throw UsageError("--confirm takes a number of points, got " + std::to_string(eopts.confirm));
  if (eopts.yosys < 0) throw UsageError("--yosys takes a number of points, got " + std::to_string(eopts.yosys));
  if (vm.count("mark")) eopts.marks = vm["mark"].as<std::vector<std::string>>();

  const std::filesystem::path out_dir =
      vm.count("out") ? vm["out"].as<std::string>() : "explore-" + hw::loadConfig(space.base).name;
  std::filesystem::create_directories(out_dir);
  const std::filesystem::path cache = out_dir / "cache.jsonl";
  if (vm.count("fresh")) std::filesystem::remove(cache);
  eopts.yosys_dir = (out_dir / "yosys").string();
  eopts.sweep.threads = vm["threads"].as<unsigned>();
  eopts.sweep.cache_path = cache.string();
  if (!quiet) {
    eopts.progress = [](const std::string& line) { std::cerr << line << "\n"; };
    // On a terminal one line that updates; in a log a line per tenth.
    const bool tty = isatty(STDERR_FILENO) != 0;
    eopts.sweep.progress = [tty, last_tenth = size_t(0)](size_t done, size_t total, size_t cached) mutable {
      const std::string what = "exploring: " + std::to_string(done) + "/" + std::to_string(total) + " points" +
                               (cached ? " (" + std::to_string(cached) + " from cache)" : "");
      if (tty) {
        std::cerr << "\r" << what << (done == total ? "\n" : "") << std::flush;
      } else if (done * 10 / total > last_tenth || done == total) {
        last_tenth = done * 10 / total;
        std::cerr << what << "\n";
      }
    };
  }
  const api::ExploreResult ex = api::runExplore(eopts);
  const std::vector<explore::PointResult>& results = ex.results;
  const std::vector<size_t>& front = ex.front;
  const explore::FpgaPart& part = ex.part;
  const double cap = ex.clock_cap_mhz;
  const auto& refused = ex.refused;
  const auto& confirmed = ex.confirmed;
  const auto& synthesised = ex.synthesised;
  const auto& markers = ex.markers;
  const auto& networks = ex.networks;
  const explore::SweepStats& stats = ex.stats;
  const nlohmann::json& doc = ex.document;
  writeFile(out_dir / "results.json", doc.dump(1) + "\n");
  writeFile(out_dir / "results.csv", ex.csv);
  writeFile(out_dir / "pareto.svg", ex.svg);

  if (json) {
    nlohmann::json summary = doc;
    summary.erase("points");
    summary["front"] = nlohmann::json::array();
    for (size_t i : front) summary["front"].push_back(explore::pointResultToJson(results[i]));
    std::cout << summary.dump(2) << "\n";
    return 0;
  }
  size_t fitting = 0;
  for (const auto& r : results) fitting += r.fits() && r.complete;
  std::cout << results.size() << " points (" << stats.evaluated << " evaluated, " << stats.cached << " from cache) in "
            << fixed(stats.seconds, 1) << " s; " << fitting << " fit " << part.device << " (" << part.dsp << " DSP, "
            << part.bram36 << " BRAM36, "
            << (part.uram > 0 ? std::to_string(int64_t(part.uram)) + " URAM, " : std::string()) << "LUT <= 85%); "
            << refused.size() << " refused (clock cap " << cap << " MHz or invalid config)\n";
  auto row = [&](const explore::PointResult& r, const std::string& name) {
    std::cout << "  " << std::left << std::setw(44) << name << std::right << std::setw(6)
              << (r.point.latency_hiding ? "on" : "off") << std::setw(7) << fixed(r.resources.dsp, 0) << std::setw(8)
              << fixed(r.resources.bram36, 1);
    if (part.uram > 0) std::cout << std::setw(6) << fixed(r.resources.uram, 0);
    std::cout << std::setw(9) << fixed(r.resources.lut, 0);
    for (const auto& n : r.networks)
      std::cout << std::setw(10) << (n.why_incomplete.empty() ? fixed(n.latency_ms, 2) : "-") << std::setw(6)
                << (n.why_incomplete.empty() ? fixed(100 * n.mac_utilisation, 0) + "%" : "");
    std::cout << std::setw(8) << fixed(r.host_ms, 2);
    std::cout << (r.fits() ? "" : "   does not fit: " + r.why_not_fits) << "\n";
  };
  std::cout << "Pareto front (" << (eopts.objective == explore::Objective::EndToEnd ? "end to end" : "latency")
            << " vs DSP, fitting points):\n  " << std::left << std::setw(44) << "config" << std::right << std::setw(6)
            << "LH" << std::setw(7) << "DSP" << std::setw(8) << "BRAM36";
  if (part.uram > 0) std::cout << std::setw(6) << "URAM";
  std::cout << std::setw(9) << "LUT";
  for (const auto& n : networks) std::cout << std::setw(10) << (n.name.substr(0, 9)) << std::setw(6) << "util";
  std::cout << std::setw(8) << "host"
            << "   (ms, MACs/ideal; host: the board CPU's work the layouts leave)\n";
  for (size_t i : front) row(results[i], results[i].point.config.name);
  if (!confirmed.empty()) std::cout << "confirmed on the cycle-accurate simulator (measured ms, cost model error):\n";
  for (const auto& [i, c] : confirmed) {
    std::cout << "  " << std::left << std::setw(44) << results[i].point.config.name << std::right;
    for (const auto& n : c.networks)
      std::cout << "  " << n.network.substr(0, 12) << " " << fixed(n.measured_ms, 2) << " ms ("
                << (n.error >= 0 ? "+" : "") << fixed(100 * n.error, 1) << "%)";
    std::cout << "  [" << fixed(c.seconds, 0) << " s]\n";
  }
  if (!synthesised.empty()) std::cout << "synthesised with yosys (yosys / resource model):\n";
  for (const auto& [i, y] : synthesised) {
    const explore::ResourceEstimate& m = results[i].resources;
    std::cout << "  " << std::left << std::setw(44) << results[i].point.config.name << std::right << "  LUT "
              << fixed(y["lut"].get<double>(), 0) << "/" << fixed(m.lut, 0) << "  FF "
              << fixed(y["ff"].get<double>(), 0) << "/" << fixed(m.ff, 0) << "  DSP "
              << fixed(y["dsp"].get<double>(), 0) << "/" << fixed(m.dsp, 0) << "  BRAM36 "
              << fixed(y["bram36"].get<double>(), 1) << "/" << fixed(m.bram36, 1)
              << (part.uram > 0 ? "  URAM " + fixed(y["uram"].get<double>(), 0) + "/" + fixed(m.uram, 0) : "")
              << (y["fits"].get<bool>() ? "" : "  (does not fit the part)") << "\n";
  }
  if (!markers.empty()) std::cout << "shipped configs:\n";
  for (const auto& m : markers) row(m.result, m.label + " (" + m.result.point.config.hashHex().substr(0, 8) + ")");
  std::cout << "wrote " << (out_dir / "results.json").string() << ", results.csv, pareto.svg\n";
  return 0;
}

}  // namespace vdla::cli
