// vdla run MODEL|ARTIFACT [--image FILE...]: runs a compiled artifact (or
// compiles a model in memory first) and prints the top-k classes of every
// image, or, without images, a summary of the outputs for a deterministic
// synthetic input.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "accel_options.h"
#include "cuda_options.h"
#include "model_loading.h"
#include "vdla/api/host_work.h"
#include "run_timeline.h"
#include "vdla/compiler/compile.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/executor.h"
#include "vdla/runtime/npy.h"
#include "vdla/runtime/imagenet.h"

namespace vdla::cli {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The synthetic input: uniform in [-1, 1) from a fixed xorshift64* stream, so
// that every run (and every backend) sees the same values.
rt::Tensor syntheticInput(const rt::TensorType& type, uint64_t seed) {
  rt::Tensor t(type.dtype, type.shape);
  uint64_t s = 0x9e3779b97f4a7c15ull ^ (seed * 0xbf58476d1ce4e5b9ull);
  auto next = [&] {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dull;
  };
  for (int64_t i = 0; i < t.numElements(); ++i) {
    uint64_t r = next();
    switch (type.dtype) {
      case rt::DType::F32: t.data<float>()[i] = static_cast<float>(r >> 40) / float(1 << 23) - 1.0f; break;
      case rt::DType::I8: t.data<int8_t>()[i] = static_cast<int8_t>(r >> 56); break;
      case rt::DType::U8: t.data<uint8_t>()[i] = static_cast<uint8_t>(r >> 56); break;
      case rt::DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(r >> 57); break;
      case rt::DType::I64: t.data<int64_t>()[i] = static_cast<int64_t>(r >> 57); break;
      case rt::DType::Bool: t.data<bool>()[i] = (r >> 63) != 0; break;
    }
  }
  return t;
}

struct OutputSummary {
  double min = 0, max = 0, mean = 0;
};

OutputSummary summarize(const rt::Tensor& t) {
  OutputSummary s;
  const int64_t n = t.numElements();
  if (n == 0) return s;
  s.min = s.max = t.getAsDouble(0);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = t.getAsDouble(i);
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  s.mean = sum / double(n);
  return s;
}

// Copies image tensors [1,3,H,W] into one [B,3,H,W] batch.
rt::Tensor stack(const std::vector<rt::Tensor>& images, const rt::TensorType& type) {
  rt::Tensor batch(type.dtype, type.shape);
  const size_t each = images.front().byteSize();
  for (size_t i = 0; i < images.size(); ++i)
    std::memcpy(static_cast<uint8_t*>(batch.raw()) + i * each, images[i].raw(), each);
  return batch;
}

}  // namespace

int runCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla run options");
  options.add_options()("model", po::value<std::string>()->required(), "artifact, ONNX file or zoo model name")(
      "image", po::value<std::vector<std::string>>()->multitoken(), "JPEG or PNG images to classify")(
      "input", po::value<std::vector<std::string>>(),
      "a .npy file per model input, in the model's input order (instead of images or the synthetic input)")(
      "save-outputs", po::value<std::string>(), "write every model output to DIR/<output name>.npy")(
      "labels", po::value<std::string>(), "class names, one per line (default: print class indices)")(
      "top", po::value<int>()->default_value(5), "number of classes to print per image")(
      "profile", "time every step, and report the host's work per inference")("json", "print the report as JSON")(
      "layer-outputs-to-host",
      "target vdla: bring every offloaded layer's output back to the host (for per-layer checks; by default "
      "outputs only offloaded layers read stay in device memory)")(
      "target", po::value<std::string>()->default_value("ref"), "target to compile a model for (ref|vdla|llvm|cuda)");
  addConfigOption(options);
  addDeviceOption(options);
  addModelOptions(options);
  addAccelOptions(options);
  addCudaOptions(options);
  addTrustOption(options);
  po::positional_options_description positional;
  positional.add("model", 1);
  po::variables_map vm;
  const std::string usage =
      "vdla run MODEL|ARTIFACT [--image FILE...] [--labels FILE] [--top K] [--json] [--target ref|vdla|llvm|cuda] "
      "[--device fsim|cycle] [--config HW] [--latency-hiding on|off] [--calib DIR] "
      "[--profile] [--batch N] [--image-size N] [--seed N] [--input X.npy...] [--save-outputs DIR] [--trace T.json]";
  if (!parseArgs(usage, args, options, positional, vm)) return 0;
  const int top = vm["top"].as<int>();
  if (top < 1) throw UsageError("--top must be at least 1, got " + std::to_string(top) + "\nusage: " + usage);
  const bool json = vm.count("json") != 0;
  const std::string spec = vm["model"].as<std::string>();

  // The artifact: loaded, or compiled in memory for target ref.
  ModelKind kind = classifyModel(spec);
  if (kind != ModelKind::Zoo && modelOptionsGiven(vm))
    throw UsageError("--batch, --image-size and --seed apply to zoo models only\nusage: " + usage);
  rt::Artifact artifact;
  std::shared_ptr<rt::KernelRegistry> jit_kernels;
  double compile_s = 0;
  Clock::time_point t = Clock::now();
  applyTrustOption(vm);
  if (kind == ModelKind::Artifact) {
    artifact = rt::loadArtifact(spec);
  } else {
    std::unique_ptr<ir::Graph> graph = loadModelGraph(spec, kind, modelOptionsFrom(vm));
    CompileOptions copts;
    copts.hw_config = vm["config"].as<std::string>();
    copts.target = vm["target"].as<std::string>();
    applyAccelOptions(vm, *graph, copts, json);
    applyCudaOptions(vm, copts);
    CompileReport report;
    artifact = compileGraph(*graph, copts, &report);
    jit_kernels = report.kernels;  // target llvm: the code compiled in this process
    compile_s = since(t);
  }
  const double load_s = since(t);

  // Accelerator targets check the device's configuration; host targets run on the CPU.
  rt::ExecutorOptions eopts;
  const bool show_profile = vm.count("profile") != 0;
  eopts.profile = show_profile || vm.count("trace") != 0;  // the timeline is made of step profiles
  eopts.device_outputs_to_host = vm.count("layer-outputs-to-host") != 0;
  hw::HwConfig device_cfg;
  std::unique_ptr<driver::Device> accelerator;
  std::string device = artifact.target == "llvm" ? "host CPU (generated code)" : "host CPU (reference kernels)";
  if (rt::targetNeedsDevice(artifact.target)) {
    const std::string cfg_name = vm["config"].defaulted() ? artifact.hw_config_name : vm["config"].as<std::string>();
    device_cfg = hw::loadConfig(cfg_name);
    eopts.device_config = &device_cfg;
    accelerator = deviceForNetwork(vm, device_cfg);
    eopts.device = accelerator.get();
    device = vm["device"].as<std::string>() + " (config " + device_cfg.name + ") + host CPU";
  } else if (artifact.target == "cuda") {
    device = "NVIDIA GPU (CUDA driver API)";
  } else if (!vm["device"].defaulted() && !json) {
    std::cerr << "vdla run: note: target '" << artifact.target << "' runs on the host CPU; --device "
              << vm["device"].as<std::string>() << " is not used\n";
  }
  std::unique_ptr<rt::Executor> executor_ptr = jit_kernels
                                                   ? std::make_unique<rt::Executor>(artifact, *jit_kernels, eopts)
                                                   : std::make_unique<rt::Executor>(artifact, eopts);
  rt::Executor& executor = *executor_ptr;

  // Inputs: preprocessed images, or the synthetic input.
  std::vector<std::string> images =
      vm.count("image") ? vm["image"].as<std::vector<std::string>>() : std::vector<std::string>{};
  std::vector<std::vector<rt::Tensor>> batches;  // one input list per run
  int64_t batch = 1;
  const std::vector<std::string> npy_inputs =
      vm.count("input") ? vm["input"].as<std::vector<std::string>>() : std::vector<std::string>{};
  if (!npy_inputs.empty() && !images.empty()) throw UsageError("give --input or --image, not both");
  if (!npy_inputs.empty()) {
    if (npy_inputs.size() != executor.numInputs())
      throw Error(spec + ": the model has " + std::to_string(executor.numInputs()) + " input(s), --input gave " +
                  std::to_string(npy_inputs.size()));
    std::vector<rt::Tensor> inputs;
    for (size_t i = 0; i < npy_inputs.size(); ++i) {
      rt::Tensor t = rt::loadNpy(npy_inputs[i]);
      const rt::TensorType& want = executor.input(i).type;
      if (t.dtype() != want.dtype || t.shape() != want.shape)
        throw Error(npy_inputs[i] + ": holds " + t.type().toString() + ", but the model's input '" +
                    executor.input(i).name + "' is " + want.toString());
      inputs.push_back(std::move(t));
    }
    batches.push_back(std::move(inputs));
  } else if (images.empty()) {
    std::vector<rt::Tensor> inputs;
    for (size_t i = 0; i < executor.numInputs(); ++i) inputs.push_back(syntheticInput(executor.input(i).type, i));
    batches.push_back(std::move(inputs));
  } else {
    if (executor.numInputs() != 1)
      throw Error(spec + ": --image needs a model with one input, this one has " +
                  std::to_string(executor.numInputs()));
    const rt::TensorType& in = executor.input(0).type;
    if (in.dtype != rt::DType::F32 || in.shape.size() != 4 || in.shape[1] != 3 || in.shape[2] != in.shape[3])
      throw Error(spec + ": --image needs an f32[N,3,S,S] image input, the model's input '" + executor.input(0).name +
                  "' is " + in.toString());
    batch = in.shape[0];
    rt::PreprocessOptions pre;
    pre.crop = static_cast<int>(in.shape[2]);
    pre.resize = pre.crop * 256 / 224;
    std::vector<rt::Tensor> pending;
    for (size_t i = 0; i < images.size(); ++i) {
      rt::Image image = rt::loadImage(images[i]);  // errors name the file
      try {
        pending.push_back(rt::preprocessImageNet(image, pre));
      } catch (const std::exception& e) {
        throw Error(images[i] + ": " + e.what());
      }
      if (static_cast<int64_t>(pending.size()) == batch || i + 1 == images.size()) {
        while (static_cast<int64_t>(pending.size()) < batch) pending.push_back(pending.back());  // pad the last batch
        batches.push_back({stack(pending, in)});
        pending.clear();
      }
    }
  }
  std::vector<std::string> labels;
  if (vm.count("labels")) labels = rt::loadClassLabels(vm["labels"].as<std::string>());

  // Run.
  std::vector<std::vector<rt::Tensor>> results;
  std::vector<rt::StepProfile> profile;
  t = Clock::now();
  std::vector<rt::StepProfile> first_run;  // the timeline shows the first run
  for (const auto& inputs : batches) {
    results.push_back(executor.run(inputs));
    if (first_run.empty()) first_run = executor.profile();
    if (show_profile) {
      if (profile.empty())
        profile = executor.profile();
      else
        for (size_t i = 0; i < profile.size(); ++i) profile[i].seconds += executor.profile()[i].seconds;
    }
  }
  const double run_s = since(t);
  if (vm.count("save-outputs")) {
    const std::filesystem::path dir = vm["save-outputs"].as<std::string>();
    std::filesystem::create_directories(dir);
    for (size_t i = 0; i < results[0].size(); ++i) {
      // Output names can hold characters a file name cannot.
      std::string file = executor.output(i).name;
      for (char& c : file)
        if (c == '/' || c == '\\' || c == ':') c = '_';
      rt::saveNpy((dir / (file + ".npy")).string(), results[0][i]);
    }
  }
  if (vm.count("trace")) {
    const std::string path = vm["trace"].as<std::string>();
    const double clock = rt::targetNeedsDevice(artifact.target) && vm["device"].as<std::string>() == "cycle"
                             ? device_cfg.clock_mhz
                             : 0.0;
    const size_t n = writeRunTimeline(path, first_run, spec + " on " + device, clock);
    if (!json)
      std::cerr << "timeline of the " << (batches.size() > 1 ? "first " : "") << "run: " << path << " (" << n
                << " events; open in ui.perfetto.dev)\n";
  }

  // Classification results: the first output as [N, classes] scores.
  const rt::TensorType& out0 = executor.output(0).type;
  const bool classify =
      !images.empty() && out0.dtype == rt::DType::F32 && out0.shape.size() == 2 && out0.shape[0] == batch;
  if (!images.empty() && !classify)
    throw Error(spec + ": the model's first output '" + executor.output(0).name + "' is " + out0.toString() +
                ", not f32[" + std::to_string(batch) + ",classes] scores");
  if (classify && !labels.empty() && static_cast<int64_t>(labels.size()) != out0.shape[1])
    throw Error(vm["labels"].as<std::string>() + ": has " + std::to_string(labels.size()) +
                " names but the model has " + std::to_string(out0.shape[1]) + " classes");
  auto labelOf = [&](int64_t index) { return labels.empty() ? std::string() : labels[index]; };

  nlohmann::json j;
  std::ostringstream text;
  j["model"] = spec;
  j["kind"] = modelKindName(kind);
  j["target"] = artifact.target;
  j["device"] = device;
  j["steps"] = artifact.steps.size();
  j["seconds"] = {{"load", load_s}, {"compile", compile_s}, {"run", run_s}, {"runs", batches.size()}};
  text << spec << ": " << artifact.steps.size() << " steps on " << device << "; ";
  if (kind != ModelKind::Artifact) text << "compiled in " << formatSeconds(compile_s) << ", ";
  text << "ran in " << formatSeconds(run_s);
  if (batches.size() > 1) text << " (" << batches.size() << " runs of batch " << batch << ")";
  text << "\n";
  if (images.empty()) {
    if (npy_inputs.empty()) {
      j["input"] = "synthetic";
      text << "no --image given: ran on a deterministic synthetic input (uniform in [-1, 1))\n";
    } else {
      j["input"] = npy_inputs;
    }
    if (vm.count("save-outputs")) text << "outputs saved in " << vm["save-outputs"].as<std::string>() << "\n";
    nlohmann::json outs = nlohmann::json::array();
    for (size_t i = 0; i < results[0].size(); ++i) {
      OutputSummary s = summarize(results[0][i]);
      const rt::Tensor& o = results[0][i];
      std::vector<double> head;
      for (int64_t k = 0; k < std::min<int64_t>(o.numElements(), 8); ++k) head.push_back(o.getAsDouble(k));
      outs.push_back({{"name", executor.output(i).name},
                      {"type", o.type().toString()},
                      {"min", s.min},
                      {"max", s.max},
                      {"mean", s.mean},
                      {"first", head}});
      text << "output '" << executor.output(i).name << "' " << o.type().toString() << ": min " << s.min << ", max "
           << s.max << ", mean " << s.mean << "\n";
    }
    j["outputs"] = outs;
    if (classify || (out0.dtype == rt::DType::F32 && out0.shape.size() == 2)) {
      nlohmann::json tops = nlohmann::json::array();
      text << "top-" << top << " of row 0:";
      for (const auto& p : rt::topK(results[0][0], top, 0)) {
        tops.push_back({{"index", p.index}, {"score", p.score}, {"probability", p.probability}});
        text << " " << p.index << " (" << std::fixed << std::setprecision(4) << p.score << ")";
        text.unsetf(std::ios::floatfield);
      }
      text << "\n";
      j["top"] = tops;
    }
  } else {
    j["input"] = images;
    nlohmann::json per_image = nlohmann::json::array();
    for (size_t i = 0; i < images.size(); ++i) {
      const rt::Tensor& scores = results[i / batch][0];
      nlohmann::json tops = nlohmann::json::array();
      text << images[i] << ":\n";
      for (const auto& p : rt::topK(scores, top, static_cast<int64_t>(i % batch))) {
        nlohmann::json e{{"index", p.index}, {"score", p.score}, {"probability", p.probability}};
        if (!labels.empty()) e["label"] = labelOf(p.index);
        tops.push_back(e);
        text << "  " << std::setw(5) << p.index << "  " << std::fixed << std::setprecision(4) << std::setw(7)
             << p.probability << "  (score " << std::setprecision(3) << p.score << ")";
        text.unsetf(std::ios::floatfield);
        if (!labels.empty()) text << "  " << labelOf(p.index);
        text << "\n";
      }
      per_image.push_back({{"image", images[i]}, {"top", tops}});
    }
    j["results"] = per_image;
  }
  if (show_profile) {
    nlohmann::json steps = nlohmann::json::array();
    std::map<std::string, std::pair<double, int>> by_kernel;
    double total = 0;
    for (const auto& p : profile) total += p.seconds;
    text << "profile (" << formatSeconds(total) << " in kernels):\n";
    for (size_t i = 0; i < profile.size(); ++i) {
      steps.push_back(
          {{"step", i}, {"name", profile[i].name}, {"kernel", profile[i].kernel}, {"seconds", profile[i].seconds}});
      by_kernel[profile[i].kernel].first += profile[i].seconds;
      by_kernel[profile[i].kernel].second += 1;
      text << "  " << std::setw(4) << i << "  " << std::setw(10) << formatSeconds(profile[i].seconds) << "  "
           << std::left << std::setw(24) << profile[i].kernel << std::right << "  " << profile[i].name << "\n";
    }
    std::vector<std::pair<std::string, std::pair<double, int>>> kernels(by_kernel.begin(), by_kernel.end());
    std::sort(kernels.begin(), kernels.end(),
              [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    nlohmann::json per_kernel = nlohmann::json::array();
    text << "by kernel:\n";
    for (const auto& [k, v] : kernels) {
      per_kernel.push_back({{"kernel", k}, {"steps", v.second}, {"seconds", v.first}});
      text << "  " << std::left << std::setw(24) << k << std::right << std::setw(4) << v.second << " steps  "
           << std::setw(10) << formatSeconds(v.first) << "  " << std::fixed << std::setprecision(1) << std::setw(5)
           << (total > 0 ? 100.0 * v.first / total : 0.0) << "%\n";
      text.unsetf(std::ios::floatfield);
    }
    j["profile"] = {{"steps", steps}, {"kernels", per_kernel}, {"total_seconds", total}};
    if (rt::targetNeedsDevice(artifact.target)) {
      const api::HostWork work = api::hostWork(artifact, first_run, device_cfg);
      text << api::hostWorkText(work);
      j["host_work"] = api::hostWorkJson(work);
    }
  }
  if (json)
    std::cout << j.dump(2) << "\n";
  else
    std::cout << text.str();
  return 0;
}

}  // namespace vdla::cli
