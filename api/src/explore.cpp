#include "vdla/api/explore.h"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "vdla/explore/pareto.h"
#include "vdla/explore/resource_model.h"
#include "vdla/explore/result_json.h"
#include "vdla/hw/error.h"

namespace vdla::api {

namespace {

void say(const ExploreOptions& o, const std::string& line) {
  if (o.progress) o.progress(line);
}

void writeText(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw Error(path.string() + ": cannot write");
}

}  // namespace

std::vector<explore::NetworkWorkload> prepareNetworks(const ExploreOptions& options) {
  if (options.networks.empty()) throw Error("explore: no networks given");
  std::vector<explore::NetworkWorkload> networks;
  for (const std::string& spec : options.networks) {
    const ModelKind kind = classifyModel(spec);
    if (kind == ModelKind::Artifact) throw Error(spec + ": explore needs a model, not a compiled artifact");
    std::unique_ptr<ir::Graph> graph = loadModelGraph(spec, kind, options.model_options);
    CompileOptions copts = options.compile_options;
    copts.target = "vdla";
    copts.hw_config = options.space.base;
    if (options.configure_compile) options.configure_compile(*graph, copts);
    say(options, "preparing " + spec + " (optimise and quantise)...");
    const std::string name = std::filesystem::path(spec).stem().string();
    networks.push_back(explore::prepareWorkload(name, std::move(graph), copts));
  }
  return networks;
}

nlohmann::json synthesiseWithYosys(const hw::HwConfig& cfg, const std::string& dir_name, bool quiet) {
  const std::filesystem::path dir = dir_name;
  const char* env_root = std::getenv("VDLA_SOURCE_DIR");
  const std::filesystem::path root = env_root ? env_root : VDLA_SOURCE_DIR;
  const std::filesystem::path script = root / "scripts/hw/resources.sh";
  if (!std::filesystem::exists(script))
    throw Error(script.string() + ": not found (set VDLA_SOURCE_DIR to the VDLA source tree to synthesise points)");
  std::filesystem::create_directories(dir / cfg.name);
  const std::filesystem::path config_file = dir / (cfg.name + ".json");
  nlohmann::json j = nlohmann::json::parse(hw::configToJson(cfg));
  j.erase("derived");
  writeText(config_file, j.dump(2) + "\n");
  const std::filesystem::path report = dir / cfg.name / "result.json";
  const std::string command = "bash '" + script.string() + "' '" + config_file.string() + "' --json --out '" +
                              (dir / cfg.name).string() + "'" + (quiet ? " --quiet" : "") + " > '" + report.string() +
                              "'";
  const int status = std::system(command.c_str());
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (rc != 0 && rc != 1)
    throw Error("yosys synthesis of " + cfg.name + " failed (scripts/hw/resources.sh exit " + std::to_string(rc) +
                "); its log is in " + (dir / cfg.name).string());
  std::ifstream in(report);
  nlohmann::json r;
  try {
    r = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(report.string() + ": unreadable report of scripts/hw/resources.sh (" + e.what() + ")");
  }
  const auto& res = r.at("resources");
  return {{"lut", res.at("LUT").at("used")},
          {"ff", res.at("FF").at("used")},
          {"dsp", res.at("DSP").at("used")},
          {"bram36", res.at("BRAM36").at("used")},
          // (reported on parts with UltraRAM only)
          {"uram", res.contains("URAM") ? res.at("URAM").at("used") : nlohmann::json(0)},
          {"fits", r.at("fits")},
          {"seconds", r.value("seconds", 0)},
          {"yosys", r.value("yosys", std::string())},
          {"config_file", config_file.string()}};
}

nlohmann::json confirmationJson(const explore::Confirmation& c) {
  nlohmann::json j = {{"device", "cycle"}, {"seconds", c.seconds}, {"networks", nlohmann::json::array()}};
  for (const auto& n : c.networks)
    j["networks"].push_back({{"network", n.network},
                             {"measured_cycles", n.measured_cycles},
                             {"estimated_cycles", n.estimated_cycles},
                             {"measured_ms", n.measured_ms},
                             {"cost_model_error", n.error}});
  return j;
}

explore::Confirmation confirmationFromJson(const nlohmann::json& j) {
  explore::Confirmation c;
  c.seconds = j.at("seconds").get<double>();
  for (const auto& n : j.at("networks"))
    c.networks.push_back({n.at("network").get<std::string>(), n.at("measured_cycles").get<double>(),
                          n.at("estimated_cycles").get<double>(), n.at("measured_ms").get<double>(),
                          n.at("cost_model_error").get<double>()});
  return c;
}

ExploreResult runExplore(const ExploreOptions& options) {
  if (options.confirm < 0)
    throw Error("explore: confirm takes a number of points, got " + std::to_string(options.confirm));
  if (options.yosys < 0) throw Error("explore: yosys takes a number of points, got " + std::to_string(options.yosys));
  if (options.yosys > 0 && options.yosys_dir.empty()) throw Error("explore: synthesising points needs a directory");
  ExploreResult out;
  out.base = hw::loadConfig(options.space.base);
  out.part = explore::fpgaPart(out.base.part);
  std::vector<explore::DesignPoint> points = explore::enumerateDesignSpace(options.space, &out.refused);
  out.clock_cap_mhz = options.clock_cap_mhz ? *options.clock_cap_mhz : out.part.dpu_clock_mhz;
  explore::applyClockCap(points, out.clock_cap_mhz,
                         options.clock_cap_mhz
                             ? "the clock cap given"
                             : "the vendor DPU's clock on " + out.part.device + "; a clock cap changes it",
                         &out.refused);
  if (points.empty()) {
    const std::string why =
        out.refused.empty() ? "" : ": " + out.refused.front().name + ": " + out.refused.front().reason;
    throw Error("the design space has no valid point (" + std::to_string(out.refused.size()) + " refused" + why + ")");
  }

  // Networks: quantised once, shared by every point.
  out.networks = prepareNetworks(options);
  const explore::ResourceModel& model = explore::ResourceModel::builtin();
  if (options.evaluate) {
    const auto start = std::chrono::steady_clock::now();
    out.results = options.evaluate(points, out.networks, out.part);
    if (out.results.size() != points.size())
      throw Error("explore: the point evaluator returned " + std::to_string(out.results.size()) + " results for " +
                  std::to_string(points.size()) + " points");
    out.stats.evaluated = points.size();
    out.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } else {
    out.results = explore::runSweep(points, out.networks, model, out.part, options.sweep, &out.stats);
  }
  out.front = explore::markParetoFront(out.results, options.objective);

  // The front, fastest points first, confirmed on the cycle simulator and synthesised.
  std::vector<size_t> by_speed = out.front;
  std::sort(by_speed.begin(), by_speed.end(), [&](size_t a, size_t b) {
    return explore::objectiveMs(out.results[a], options.objective) <
           explore::objectiveMs(out.results[b], options.objective);
  });
  const size_t n_confirm = std::min<size_t>(size_t(options.confirm), by_speed.size());
  const size_t n_yosys = std::min<size_t>(size_t(options.yosys), by_speed.size());
  if (options.confirm_points && n_confirm > 0) {
    say(options, "confirming " + std::to_string(n_confirm) + " points on the cycle-accurate simulator...");
    std::vector<explore::DesignPoint> points;
    for (size_t k = 0; k < n_confirm; ++k) points.push_back(out.results[by_speed[k]].point);
    const std::vector<explore::Confirmation> c = options.confirm_points(points, out.networks);
    if (c.size() != points.size()) throw Error("explore: the confirmer answered for a different number of points");
    for (size_t k = 0; k < n_confirm; ++k) out.confirmed[by_speed[k]] = c[k];
  } else {
    for (size_t k = 0; k < n_confirm; ++k) {
      const size_t i = by_speed[k];
      say(options, "confirming " + out.results[i].point.config.name + " on the cycle-accurate simulator (" +
                       std::to_string(k + 1) + "/" + std::to_string(n_confirm) + ")...");
      out.confirmed[i] = explore::confirmOnDevice(out.results[i].point, out.networks, "cycle");
    }
  }
  if (options.synthesise_configs && n_yosys > 0) {
    say(options, "synthesising " + std::to_string(n_yosys) + " points with yosys...");
    std::vector<hw::HwConfig> configs;
    for (size_t k = 0; k < n_yosys; ++k) configs.push_back(out.results[by_speed[k]].point.config);
    const std::vector<nlohmann::json> y = options.synthesise_configs(configs, options.yosys_dir);
    if (y.size() != configs.size()) throw Error("explore: the synthesiser answered for a different number of configs");
    for (size_t k = 0; k < n_yosys; ++k) out.synthesised[by_speed[k]] = y[k];
  } else {
    for (size_t k = 0; k < n_yosys; ++k) {
      const size_t i = by_speed[k];
      say(options, "synthesising " + out.results[i].point.config.name + " with yosys (" + std::to_string(k + 1) + "/" +
                       std::to_string(n_yosys) + ")...");
      out.synthesised[i] = synthesiseWithYosys(out.results[i].point.config, options.yosys_dir, !options.progress);
    }
  }

  // Reference configs: the shipped ones on the same device, as shipped.
  std::vector<std::string> marks = options.marks;
  if (marks.empty())
    for (const std::string& n : hw::builtinConfigNames())
      if (explore::fpgaPart(hw::loadConfig(n).part).device == out.part.device && n != "tiny") marks.push_back(n);
  for (const std::string& m : marks) {
    const hw::HwConfig c = hw::loadConfig(m);
    out.markers.push_back(
        {c.name, explore::evaluateDesignPoint({c, true}, out.networks, model, explore::fpgaPart(c.part))});
  }

  std::string title = "VDLA design space on " + out.part.device + ":";
  for (const auto& n : out.networks) title += " " + n.name;
  nlohmann::json& doc = out.document;
  doc["base"] = out.base.name;
  doc["part"] = out.part.device;
  doc["clock_cap_mhz"] = out.clock_cap_mhz;
  doc["objective"] = explore::objectiveName(options.objective);
  doc["space"] = nlohmann::json::parse(explore::designSpaceToJson(options.space));
  doc["networks"] = nlohmann::json::array();
  for (const auto& n : out.networks)
    doc["networks"].push_back(
        {{"name", n.name}, {"conv_layers", n.layers.size()}, {"macs", n.macs}, {"cpu_convs", n.cpu_convs}});
  doc["points"] = nlohmann::json::array();
  for (size_t i = 0; i < out.results.size(); ++i) {
    nlohmann::json p = explore::pointResultToJson(out.results[i]);
    if (out.confirmed.count(i)) p["confirmed"] = confirmationJson(out.confirmed.at(i));
    if (out.synthesised.count(i)) p["yosys"] = out.synthesised.at(i);
    doc["points"].push_back(p);
  }
  doc["front"] = nlohmann::json::array();
  for (size_t i : out.front) doc["front"].push_back(i);  // indices into points
  doc["refused"] = nlohmann::json::array();
  for (const auto& r : out.refused) doc["refused"].push_back({{"name", r.name}, {"reason", r.reason}});
  doc["marked"] = nlohmann::json::array();
  for (const auto& m : out.markers) doc["marked"].push_back(explore::pointResultToJson(m.result));
  doc["stats"] = {{"evaluated", out.stats.evaluated}, {"cached", out.stats.cached}, {"seconds", out.stats.seconds}};
  out.csv = explore::resultsCsv(out.results);
  out.svg = explore::paretoSvg(out.results, out.markers, out.part, title, options.objective);
  return out;
}

}  // namespace vdla::api
