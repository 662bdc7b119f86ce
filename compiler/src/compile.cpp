#include "vdla/compiler/compile.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/quant/calibration.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/kernels/reference_kernels.h"
#ifdef VDLA_WITH_CUDA_BACKEND
#include "vdla/compiler/cuda/cuda_backend.h"
#endif

namespace vdla {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> availableTargets() {
  std::vector<std::string> names;
  for (const std::string& t : compileTargets())
    if (isTargetAvailable(t)) names.push_back(t);
  return names;
}

std::mutex lowerings_mutex;
std::map<std::string, TargetLowering>& lowerings() {
  static std::map<std::string, TargetLowering> map;
  return map;
}

CpuStepCompiler& cpuStepCompiler() {
  static CpuStepCompiler compiler;
  return compiler;
}

const TargetLowering* findLowering(const std::string& target) {
  std::lock_guard<std::mutex> lock(lowerings_mutex);
  auto it = lowerings().find(target);
  return it == lowerings().end() ? nullptr : &it->second;
}

void checkTarget(const std::string& target) {
  std::vector<std::string> known = compileTargets();
  if (std::find(known.begin(), known.end(), target) == known.end())
    throw std::invalid_argument("unknown target '" + target + "' (known: " + joined(known) + ")");
  if (!isTargetAvailable(target))
    throw std::runtime_error("target '" + target + "' is not available in this build yet (available: " +
                             joined(availableTargets()) + ")");
}

}  // namespace

std::vector<std::string> compileTargets() { return {"ref", "vdla", "llvm", "cuda"}; }

bool isTargetAvailable(const std::string& target) {
#ifdef VDLA_WITH_CUDA_BACKEND
  if (target == "cuda") return true;
#endif
  return target == "ref" || target == "vdla" || findLowering(target) != nullptr;
}

void registerTargetLowering(const std::string& target, TargetLowering lowering) {
  std::lock_guard<std::mutex> lock(lowerings_mutex);
  lowerings()[target] = std::move(lowering);
}

void registerCpuStepCompiler(CpuStepCompiler compiler) {
  std::lock_guard<std::mutex> lock(lowerings_mutex);
  cpuStepCompiler() = std::move(compiler);
}

bool isQuantizedForAccelerator(const ir::Graph& graph) {
  bool any_qconv = false;
  for (const ir::Node* n : graph.nodes()) {
    const std::string op = n->qualifiedOp();
    if (op == "vdla.QConv") any_qconv = true;
    if (op == "Conv" || op == "Gemm" || op == "MatMul") return false;
  }
  return any_qconv;
}

namespace {

// Seeded standard-normal samples shaped like the graph inputs (f32 only).
std::vector<std::vector<rt::Tensor>> syntheticSamples(const ir::Graph& graph, size_t count) {
  std::vector<std::vector<rt::Tensor>> samples(count);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&]() {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  for (auto& sample : samples)
    for (const ir::Value* in : graph.inputs()) {
      if (in->type().dtype != rt::DType::F32)
        throw std::runtime_error("calibration: input '" + in->name() + "' is not f32; give calibration samples");
      rt::Tensor t(in->type());
      float* d = t.data<float>();
      for (int64_t i = 0; i < t.numElements(); ++i) {
        // Sum of four uniforms, scaled to unit variance: close enough to normal.
        double s = 0;
        for (int k = 0; k < 4; ++k) s += double(next() >> 11) / double(1ull << 53);
        d[i] = static_cast<float>((s - 2.0) * 1.7320508);
      }
      sample.push_back(std::move(t));
    }
  return samples;
}

}  // namespace

rt::Artifact lowerToArtifact(const ir::Graph& graph, const std::string& target, const std::string& hw_config_name,
                             uint64_t hw_config_hash) {
  checkTarget(target);
  rt::KernelRegistry& kernels = rt::KernelRegistry::global();
  rt::registerReferenceKernels(kernels);

  rt::Artifact a;
  a.target = target;
  a.model_name = graph.name;
  a.hw_config_name = hw_config_name;
  a.hw_config_hash = hw_config_hash;
  a.metadata["producer"] = "vdla compiler";

  std::unordered_map<const ir::Value*, int32_t> ids;
  auto idOf = [&](const ir::Value* v) -> int32_t {
    auto it = ids.find(v);
    if (it != ids.end()) return it->second;
    if (!v->hasType()) throw std::runtime_error("lowering: value '" + v->name() + "' has no type");
    rt::ArtifactTensor t;
    t.name = v->name();
    t.type = v->type();
    if (v->isConstant()) t.constant = v->constant();
    int32_t id = static_cast<int32_t>(a.tensors.size());
    a.tensors.push_back(std::move(t));
    ids.emplace(v, id);
    return id;
  };
  for (const ir::Value* v : graph.inputs()) a.inputs.push_back(idOf(v));
  for (const ir::Node* node : graph.nodes()) {
    rt::ArtifactStep step;
    step.kernel = rt::referenceKernelName(node->qualifiedOp());
    if (!kernels.find(step.kernel))
      throw std::runtime_error(node->describe() + ": target '" + target + "' has no kernel '" + step.kernel + "'");
    step.name = node->name();
    for (const ir::Value* in : node->inputs()) step.inputs.push_back(in ? idOf(in) : -1);
    for (const ir::Value* out : node->outputs()) step.outputs.push_back(idOf(out));
    step.attrs = node->attrs();
    a.steps.push_back(std::move(step));
  }
  for (const ir::Value* v : graph.outputs()) a.outputs.push_back(idOf(v));
  a.validate("lowering of graph '" + graph.name + "'");
  return a;
}

rt::Artifact compileGraph(ir::Graph& graph, const CompileOptions& options, CompileReport* report) {
  checkTarget(options.target);
  hw::HwConfig cfg = options.hw_config_value ? *options.hw_config_value : hw::loadConfig(options.hw_config);
  CompileReport local;
  CompileReport& r = report ? *report : local;

  auto start = std::chrono::steady_clock::now();
  if (options.optimize)
    r.passes = runStandardPipeline(graph, options.pipeline);
  else
    ir::verifyGraphOrThrow(graph, ir::VerifyOptions{true});
  r.pipeline_seconds = secondsSince(start);

  if (options.target == "vdla") {
    // A model quantised elsewhere keeps its own parameters.
    if (quant::hasQLinearOperators(graph)) {
      start = std::chrono::steady_clock::now();
      r.qlinear = quant::convertQLinearToQConv(graph);
      r.converted_qlinear = true;
      r.quantize_seconds = secondsSince(start);
    }
    if (!r.converted_qlinear && !isQuantizedForAccelerator(graph)) {
      start = std::chrono::steady_clock::now();
      const std::vector<std::vector<rt::Tensor>> samples =
          options.calibration.empty() ? syntheticSamples(graph, 4) : options.calibration;
      quant::CalibrationOptions copts;
      copts.progress = options.calibration_progress;
      const quant::CalibrationTable table = quant::calibrate(graph, samples, copts);
      r.quantization = quant::quantizeGraph(graph, table, options.quantize);
      r.quantized = true;
      r.calibration_samples = samples.size();
      r.quantize_seconds = secondsSince(start);
    }
    start = std::chrono::steady_clock::now();
    r.layers.clear();
    rt::Artifact a = accel::lowerForAccelerator(graph, cfg, options.accel, &r.layers);
    CpuStepCompiler cpu;
    {
      std::lock_guard<std::mutex> lock(lowerings_mutex);
      cpu = cpuStepCompiler();
    }
    if (options.llvm_cpu_fallback && cpu) cpu(graph, a, options, r);
    r.lowering_seconds = secondsSince(start);
    return a;
  }

  start = std::chrono::steady_clock::now();
#ifdef VDLA_WITH_CUDA_BACKEND
  if (options.target == "cuda") {
    // The CUDA backend rewrites the reference plan into kernel launches.
    rt::Artifact a = cuda::lowerForCuda(lowerToArtifact(graph, "ref", cfg.name, cfg.hash), options.cuda);
    r.lowering_seconds = secondsSince(start);
    return a;
  }
#endif
  // A model quantised elsewhere runs on the CPU back end as generated int8
  // code: its integer convolutions and dense layers become vdla.QConv, its
  // own scales honoured, as for the accelerator.
  if (options.target == "llvm" && quant::hasQLinearOperators(graph)) {
    const auto convert_start = std::chrono::steady_clock::now();
    r.qlinear = quant::convertQLinearToQConv(graph);
    r.converted_qlinear = true;
    r.quantize_seconds = secondsSince(convert_start);
    start = std::chrono::steady_clock::now();
  }
  // Back ends in their own libraries (target "llvm").
  if (const TargetLowering* lowering = findLowering(options.target)) {
    rt::Artifact a = (*lowering)(graph, options, r);
    a.hw_config_name = cfg.name;
    a.hw_config_hash = cfg.hash;
    r.lowering_seconds = secondsSince(start);
    return a;
  }
  rt::Artifact a = lowerToArtifact(graph, options.target, cfg.name, cfg.hash);
  r.lowering_seconds = secondsSince(start);
  return a;
}

}  // namespace vdla
