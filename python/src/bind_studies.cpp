// Profiling (latency hiding on and off, per layer) and design-space
// exploration. vdla.explore's Ray executor hands the points to the cluster
// through `evaluator`; each Ray task calls evaluate_points on prepared
// networks, which is explore::evaluateDesignPoint, the local sweep's own unit.
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>
#include <nlohmann/json.hpp>

#include "bindings.h"
#include "handles.h"
#include "options.h"
#include "tensor_convert.h"
#include "vdla/api/explore.h"
#include "vdla/api/profile.h"
#include "vdla/explore/resource_model.h"
#include "vdla/explore/result_json.h"
#include "vdla/hw/error.h"

namespace nb = nanobind;

namespace vdla::python {

namespace {

// The networks of an exploration, prepared once per process.
struct Workloads {
  std::vector<explore::NetworkWorkload> networks;
};

// A design point as JSON: its config (without the derived quantities) and
// its latency-hiding mode.
nlohmann::json pointJson(const explore::DesignPoint& p) {
  nlohmann::json config = nlohmann::json::parse(hw::configToJson(p.config, -1));
  config.erase("derived");
  return {{"config", config}, {"latency_hiding", p.latency_hiding}};
}

explore::DesignPoint pointFromJson(const nlohmann::json& j) {
  explore::DesignPoint p;
  p.config = hw::parseConfig(j.at("config").dump(), "design point");
  p.latency_hiding = j.at("latency_hiding").get<bool>();
  return p;
}

}  // namespace

void bindStudies(nb::module_& m) {
  m.def(
      "profile",
      [](ModelHandle& model, const std::string& config, const std::string& compile_json, const std::vector<bool>& modes,
         const std::string& device, std::optional<InArray> input, bool progress) {
        api::ProfileOptions o;
        o.latency_hiding = modes;
        o.device = device;
        o.model_name = model.spec;
        if (input) o.input = tensorFromArray(*input, "profile input");
        if (progress) o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
        const hw::HwConfig cfg = configFromSpec(config);
        CompileOptions copts = compileOptionsFromJson(nlohmann::json::parse(compile_json));
        api::ProfileResult r;
        {
          nb::gil_scoped_release release;
          std::unique_ptr<ir::Graph> graph = model.freshGraph();
          r = api::profileNetwork(*graph, cfg, copts, o);
        }
        nlohmann::json j = api::profileJson(r.report);
        j["outputs_identical_across_modes"] = r.outputs_identical;
        std::vector<nb::object> outputs;
        for (rt::Tensor& t : r.outputs) outputs.push_back(arrayFromTensor(std::move(t)));
        return std::make_tuple(j.dump(), api::profileSvg(r.report), api::profileTable(r.report), outputs);
      },
      nb::arg("model"), nb::arg("config"), nb::arg("compile_json"), nb::arg("modes"), nb::arg("device"),
      nb::arg("input").none(), nb::arg("progress"),
      "Profiles a model per latency-hiding mode: (report JSON, SVG chart, table text, outputs of the first mode).");

  nb::class_<Workloads>(m, "Workloads", "An exploration's networks, optimised and quantised once.")
      .def_prop_ro("names", [](const Workloads& w) {
        std::vector<std::string> names;
        for (const auto& n : w.networks) names.push_back(n.name);
        return names;
      });
  m.def(
      "prepare_networks",
      [](const std::string& options_json) {
        const api::ExploreOptions o = exploreOptionsFromJson(nlohmann::json::parse(options_json));
        auto w = std::make_shared<Workloads>();
        nb::gil_scoped_release release;
        w->networks = api::prepareNetworks(o);
        return w;
      },
      nb::arg("options_json"), "The networks of explore options, prepared for evaluating points.");
  m.def(
      "evaluate_points",
      [](const std::string& points_json, const Workloads& workloads, const std::string& part_name) {
        const nlohmann::json points = nlohmann::json::parse(points_json);
        nlohmann::json results = nlohmann::json::array();
        nb::gil_scoped_release release;
        const explore::FpgaPart& part = explore::fpgaPart(part_name);
        for (const auto& p : points)
          results.push_back(explore::pointResultToJson(explore::evaluateDesignPoint(
              pointFromJson(p), workloads.networks, explore::ResourceModel::builtin(), part)));
        return results.dump();
      },
      nb::arg("points_json"), nb::arg("workloads"), nb::arg("part"),
      "Evaluates design points (JSON list of {config, latency_hiding}) with the cost and resource models.");
  m.def(
      "confirm_points",
      [](const std::string& points_json, const Workloads& workloads) {
        const nlohmann::json points = nlohmann::json::parse(points_json);
        nlohmann::json results = nlohmann::json::array();
        nb::gil_scoped_release release;
        for (const auto& p : points)
          results.push_back(
              api::confirmationJson(explore::confirmOnDevice(pointFromJson(p), workloads.networks, "cycle")));
        return results.dump();
      },
      nb::arg("points_json"), nb::arg("workloads"),
      "Runs design points' networks on the cycle-accurate simulator against the cost model (JSON per point).");
  m.def(
      "synthesise_configs",
      [](const std::string& configs_json, const std::string& directory) {
        const nlohmann::json configs = nlohmann::json::parse(configs_json);
        nlohmann::json results = nlohmann::json::array();
        nb::gil_scoped_release release;
        for (const auto& c : configs)
          results.push_back(api::synthesiseWithYosys(hw::parseConfig(c.dump(), "design point"), directory, true));
        return results.dump();
      },
      nb::arg("configs_json"), nb::arg("directory"),
      "Synthesises configs with yosys (scripts/hw/resources.sh); what yosys counted, as JSON per config.");
  m.def(
      "explore",
      [](const std::string& options_json, std::optional<nb::callable> evaluator, std::optional<nb::callable> confirmer,
         std::optional<nb::callable> synthesiser) {
        api::ExploreOptions o = exploreOptionsFromJson(nlohmann::json::parse(options_json));
        if (confirmer) {
          nb::callable fn = *confirmer;
          o.confirm_points = [fn](const std::vector<explore::DesignPoint>& points,
                                  const std::vector<explore::NetworkWorkload>&) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& p : points) list.push_back(pointJson(p));
            std::string answer;
            {
              nb::gil_scoped_acquire acquire;
              answer = nb::cast<std::string>(fn(list.dump()));
            }
            std::vector<explore::Confirmation> out;
            for (const auto& c : nlohmann::json::parse(answer)) out.push_back(api::confirmationFromJson(c));
            return out;
          };
        }
        if (synthesiser) {
          nb::callable fn = *synthesiser;
          o.synthesise_configs = [fn](const std::vector<hw::HwConfig>& configs, const std::string& dir) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& c : configs) list.push_back(pointJson({c, true}).at("config"));
            std::string answer;
            {
              nb::gil_scoped_acquire acquire;
              answer = nb::cast<std::string>(fn(list.dump(), dir));
            }
            std::vector<nlohmann::json> out;
            for (const auto& y : nlohmann::json::parse(answer)) out.push_back(y);
            return out;
          };
        }
        if (evaluator) {
          nb::callable fn = *evaluator;
          o.evaluate = [fn](const std::vector<explore::DesignPoint>& points,
                            const std::vector<explore::NetworkWorkload>&, const explore::FpgaPart& part) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& p : points) list.push_back(pointJson(p));
            std::string answer;
            {
              nb::gil_scoped_acquire acquire;
              answer = nb::cast<std::string>(fn(list.dump(), part.device));
            }
            const nlohmann::json results = nlohmann::json::parse(answer);
            if (!results.is_array() || results.size() != points.size())
              throw Error("explore: the evaluator answered " + std::to_string(results.size()) + " results for " +
                          std::to_string(points.size()) + " points");
            std::vector<explore::PointResult> out;
            for (size_t i = 0; i < points.size(); ++i)
              out.push_back(explore::pointResultFromJson(results[i], points[i]));
            return out;
          };
        }
        api::ExploreResult r;
        {
          nb::gil_scoped_release release;
          r = api::runExplore(o);
        }
        return std::make_tuple(r.document.dump(), r.csv, r.svg);
      },
      nb::arg("options_json"), nb::arg("evaluator").none() = nb::none(), nb::arg("confirmer").none() = nb::none(),
      nb::arg("synthesiser").none() = nb::none(),
      "Explores a design space: (results JSON, CSV, SVG Pareto chart). `evaluator(points_json, part)` evaluates "
      "points elsewhere (their results as JSON), `confirmer(points_json)` runs the front's confirmations and "
      "`synthesiser(configs_json, dir)` its yosys syntheses; None does that work here.");
}

}  // namespace vdla::python
