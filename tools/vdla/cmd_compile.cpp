// vdla compile MODEL -o OUT: imports an ONNX model or builds a zoo model, runs
// the standard pass pipeline and the target's stages (target_registry.h) and
// writes an artifact. Prints where the time went (the compile of resnet18 is
// budgeted at under one second).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "accel_options.h"
#include "cuda_options.h"
#include "model_loading.h"
#include "vdla/api/compile_report.h"
#include "vdla/compiler/compile.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/artifact_signature.h"

namespace vdla::cli {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string targetList() {
  std::string s;
  for (const auto& t : compileTargets()) s += (s.empty() ? "" : "|") + t;
  return s;
}

}  // namespace

int compileCommand(const std::vector<std::string>& args) {
  const Clock::time_point start = Clock::now();
  po::options_description options("vdla compile options");
  options.add_options()("model", po::value<std::string>()->required(), "ONNX file or zoo model name")(
      "output,o", po::value<std::string>()->required(), "artifact file to write")(
      "target", po::value<std::string>()->default_value("ref"), ("target (" + targetList() + ")").c_str())(
      "print-after-all",
      "print the IR after every pass and graph stage of the target, a summary of the artifact after every stage that "
      "makes or changes it")("time-passes", "print the time of every pass and target stage")(
      "no-verify", "do not verify the IR or artifact after every pass and target stage")("json",
                                                                                         "print the report as JSON")(
      "cpu", po::value<std::string>()->default_value("host"),
      "targets llvm and vdla: CPU of the generated code's shared library (host|armv7|aarch64)")(
      "sign", po::value<std::string>(), "sign the artifact with this secret key (vdla keygen)");
  addConfigOption(options);
  addModelOptions(options);
  addAccelOptions(options);
  addCudaOptions(options);
  po::positional_options_description positional;
  positional.add("model", 1);
  po::variables_map vm;
  const std::string usage =
      "vdla compile MODEL -o OUT [--target " + targetList() +
      "] [--config HW] [--cpu host|armv7|aarch64] [--cuda-arch sm_XY,...] [--cuda-tf32] [--latency-hiding on|off] "
      "[--calib DIR] [--print-after-all] [--time-passes] [--batch N] [--image-size N] [--seed N] [--json]";
  if (!parseArgs(usage, args, options, positional, vm)) return 0;

  CompileOptions copts;
  copts.target = vm["target"].as<std::string>();
  copts.hw_config = vm["config"].as<std::string>();
  std::vector<std::string> targets = compileTargets();
  if (std::find(targets.begin(), targets.end(), copts.target) == targets.end())
    throw UsageError("unknown target '" + copts.target + "' (known: " + targetList() + ")\nusage: " + usage);
  if (!isTargetAvailable(copts.target))
    throw Error("target '" + copts.target +
                "' is not available in this build: " + findTarget(copts.target)->unavailable_reason);
  copts.pipeline.verify_each = !vm.count("no-verify");
  if (vm.count("print-after-all")) copts.pipeline.print_after_each = &std::cout;
  // A saved llvm artifact carries its code as a shared library; so do the
  // CPU steps of a vdla artifact (for the board's CPU with --cpu armv7).
  if (copts.target == "llvm" || copts.target == "vdla") copts.llvm_library_cpu = vm["cpu"].as<std::string>();

  const std::string spec = vm["model"].as<std::string>();
  const std::string out_path = vm["output"].as<std::string>();
  ModelKind kind = classifyModel(spec);
  if (kind == ModelKind::Artifact) throw Error(spec + ": is already a compiled artifact");
  if (kind == ModelKind::Onnx && modelOptionsGiven(vm))
    throw UsageError("--batch, --image-size and --seed apply to zoo models only\nusage: " + usage);
  ModelOptions mopts = modelOptionsFrom(vm);

  Clock::time_point t = Clock::now();
  std::unique_ptr<ir::Graph> graph = loadModelGraph(spec, kind, mopts);
  const double load_s = since(t);
  const size_t nodes_before = graph->numNodes();

  applyAccelOptions(vm, *graph, copts, vm.count("json") != 0);
  applyCudaOptions(vm, copts);
  CompileReport report;
  rt::Artifact artifact = compileGraph(*graph, copts, &report);
  artifact.metadata["source"] = spec;
  artifact.metadata["source_kind"] = modelKindName(kind);
  if (kind == ModelKind::Zoo)
    artifact.metadata["zoo_options"] = "batch=" + std::to_string(mopts.batch) +
                                       " image_size=" + std::to_string(mopts.image_size) +
                                       " seed=" + std::to_string(mopts.seed);

  t = Clock::now();
  if (vm.count("sign")) {
    const rt::SecretKey key = rt::loadSecretKey(vm["sign"].as<std::string>());
    const std::vector<uint8_t> bytes = rt::serializeArtifact(artifact);
    writeFile(out_path, rt::signArtifactBytes(bytes.data(), bytes.size(), key));
  } else {
    rt::saveArtifact(artifact, out_path);
  }
  const double write_s = since(t);
  const double total_s = since(start);
  if (vm.count("time-passes")) report.passes.print(std::cout);

  char hash[17];
  std::snprintf(hash, sizeof(hash), "%016llx", static_cast<unsigned long long>(artifact.hw_config_hash));
  if (vm.count("json")) {
    nlohmann::json j{{"model", spec},
                     {"kind", modelKindName(kind)},
                     {"output", out_path},
                     {"target", artifact.target},
                     {"config", artifact.hw_config_name},
                     {"config_hash", hash},
                     {"nodes_before", nodes_before},
                     {"steps", artifact.steps.size()},
                     {"tensors", artifact.tensors.size()},
                     {"parameters", artifact.constantElements()},
                     {"parameter_bytes", artifact.constantBytes()},
                     {"seconds",
                      {{"load", load_s},
                       {"passes", report.pipeline_seconds},
                       {"lowering", report.lowering_seconds},
                       {"write", write_s},
                       {"total", total_s}}}};
    const nlohmann::json r = api::compileReportJson(report, artifact);
    j["passes"] = r.at("passes");
    if (artifact.target == "vdla") {
      j["cpu_steps"] = r.at("cpu_steps");
      j["accelerator_steps"] = r.at("accelerator_steps");
    }
    if (artifact.target == "llvm") j["reference_steps"] = r.at("reference_steps");
    if (report.converted_qlinear) {
      nlohmann::json kept = nlohmann::json::array();
      for (const auto& [node, why] : report.qlinear.kept) kept.push_back({{"node", node}, {"reason", why}});
      j["pre_quantised"] = {
          {"convolutions", report.qlinear.convolutions}, {"dense", report.qlinear.dense}, {"kept", kept}};
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << "compiled " << spec << " (" << modelKindName(kind) << ") for target " << artifact.target << ", config "
              << artifact.hw_config_name << " (hash " << hash << ")\n"
              << "  graph: " << nodes_before << " nodes -> " << artifact.steps.size() << " steps, "
              << artifact.tensors.size() << " tensors, " << formatCount(double(artifact.constantElements()))
              << " parameters (" << formatBytes(double(artifact.constantBytes())) << ")\n"
              << "  time: load " << formatSeconds(load_s) << ", passes " << formatSeconds(report.pipeline_seconds)
              << ", lowering " << formatSeconds(report.lowering_seconds) << ", write " << formatSeconds(write_s)
              << "; total " << formatSeconds(total_s) << "\n";
    if (report.converted_qlinear) {
      const quant::QLinearConversionReport& q = report.qlinear;
      std::cout << "  pre-quantised layers: " << q.convolutions << " convolutions and " << q.dense
                << " dense layers as vdla.QConv with the model's own scales\n";
      for (const auto& [node, why] : q.kept) std::cout << "    " << node << " stays as it is: " << why << "\n";
    }
    if (artifact.target == "vdla") {
      size_t generated = 0, reference = 0;
      for (const auto& l : report.layers)
        if (!l.offloaded) ++(l.cpu_code == "llvm" ? generated : reference);
      std::cout << "  accelerator steps: " << report.layers.size() - generated - reference << "\n";
      std::cout << "  cpu steps: " << generated << " generated (llvm), " << reference << " reference kernels\n";
      // Every step left on the CPU says why.
      for (const auto& l : report.layers)
        if (!l.offloaded) {
          const std::string prefix = "layer '" + l.name + "': ";
          const bool named = l.reason.compare(0, prefix.size(), prefix) == 0;
          std::cout << "    " << l.name << " on the CPU: " << (named ? l.reason.substr(prefix.size()) : l.reason)
                    << "\n";
        }
      for (const auto& l : report.layers)
        if (!l.offloaded && !l.cpu_reason.empty()) std::cout << "    " << l.name << ": " << l.cpu_reason << "\n";
    }
    if (artifact.target == "llvm") {
      std::string reference;
      for (const auto& step : artifact.steps)
        if (step.kernel.rfind("ref.", 0) == 0)
          reference += (reference.empty() ? "" : ", ") + step.name + " (" + step.kernel + ")";
      if (!reference.empty()) std::cout << "  reference kernels (no generated code): " << reference << "\n";
    }
    std::cout << "wrote " << out_path << "\n";
  }
  return 0;
}

}  // namespace vdla::cli
