#include "vdla/runtime/executor.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <new>
#include <tuple>

#include "vdla/runtime/kernels/reference_kernels.h"
#ifdef VDLA_RUNTIME_ACCEL
#include "vdla/runtime/accel/device_session.h"
#endif
#include "vdla/runtime/cuda/cuda_session.h"
#include "vdla/runtime/native/native_kernels.h"
#include "vdla/runtime/native/native_library.h"

namespace vdla::rt {

namespace {

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string describeStep(const ArtifactStep& s, size_t index) {
  return "step " + std::to_string(index) + (s.name.empty() ? "" : " '" + s.name + "'") + " (" + s.kernel + ")";
}

const KernelRegistry& globalWithReference() {
  KernelRegistry& r = KernelRegistry::global();
  registerReferenceKernels(r);
  return r;
}

}  // namespace

bool targetNeedsDevice(const std::string& target) { return target == "vdla"; }

void checkArtifactDevice(const Artifact& a, const hw::HwConfig& device, const std::string& source) {
  if (a.hw_config_hash == device.hash) return;
  throw ArtifactError(source + ": compiled for hardware config '" + a.hw_config_name + "' (hash " +
                      hex64(a.hw_config_hash) + ") but the device's config '" + device.name + "' has hash " +
                      hex64(device.hash) + "; refusing to run it (recompile with --config " + device.name + ")");
}

Executor::Executor(Artifact artifact, const ExecutorOptions& options)
    : artifact_(std::move(artifact)), options_(options) {
  prepare(globalWithReference());
}

#ifndef VDLA_RUNTIME_ACCEL
// A runtime built without the accelerator (VDLA_RUNTIME_ACCEL=OFF, e.g. the
// deployable ARM build) never creates a session; the type only has to be
// complete for session_'s destructor.
namespace accel {
class DeviceSession {};
}  // namespace accel
#endif

Executor::~Executor() = default;

Executor::Executor(Artifact artifact, const KernelRegistry& registry, const ExecutorOptions& options)
    : artifact_(std::move(artifact)), options_(options) {
  prepare(registry);
}

void Executor::prepare(const KernelRegistry& registry) {
  const std::string source = artifact_.model_name.empty() ? "artifact" : "artifact '" + artifact_.model_name + "'";
  artifact_.validate(source);
  if (artifact_.target == "cuda") {
    // The GPU session runs every step itself; tensors stay in device memory.
    try {
      cuda_ = std::make_unique<cuda::CudaSession>(artifact_, options_.cuda_device);
    } catch (const cuda::CudaError& e) {
      throw cuda::CudaError(source + ": " + e.what());
    }
    return;
  }
  const KernelRegistry* kernels = &registry;
  if (targetNeedsDevice(artifact_.target)) {
    if (options_.device) options_.device_config = &options_.device->config();
    if (!options_.device_config)
      throw ArtifactError(source + ": target '" + artifact_.target +
                          "' runs on an accelerator, but no device config was given");
    checkArtifactDevice(artifact_, *options_.device_config, source);
    if (options_.device) {
#ifndef VDLA_RUNTIME_ACCEL
      throw ArtifactError(source + ": target '" + artifact_.target +
                          "' offloads steps to the accelerator, but this runtime was built without it "
                          "(VDLA_RUNTIME_ACCEL=OFF)");
#else
      session_ = std::make_unique<accel::DeviceSession>(artifact_, *options_.device, std::chrono::minutes(10),
                                                        options_.device_outputs_to_host);
      device_registry_ = registry;
      session_->registerKernels(device_registry_);
      kernels = &device_registry_;
#endif
    }
  }
  // Generated CPU code that the registry does not hold (no JIT in this
  // process): load it from the artifact's shared library.
  bool needs_library = false;
  for (const ArtifactStep& step : artifact_.steps)
    needs_library |= native::isNativeKernel(step.kernel) && !kernels->find(step.kernel);
  if (needs_library) {
    if (kernels != &device_registry_) device_registry_ = *kernels;
    native::registerLibraryKernels(artifact_, device_registry_, source);
    kernels = &device_registry_;
  }
  for (size_t i = 0; i < artifact_.steps.size(); ++i) {
    const KernelFn* k = kernels->find(artifact_.steps[i].kernel);
    if (!k)
      throw ArtifactError(source + ": " + describeStep(artifact_.steps[i], i) + " needs kernel '" +
                          artifact_.steps[i].kernel + "', which this runtime does not have (target '" +
                          artifact_.target + "')");
    kernels_.push_back(k);
  }
  // Last reader of every step output and graph input; graph outputs stay.
  std::vector<int64_t> last_use(artifact_.tensors.size(), -1);
  for (size_t s = 0; s < artifact_.steps.size(); ++s) {
    for (int32_t id : artifact_.steps[s].inputs)
      if (id >= 0) last_use[id] = static_cast<int64_t>(s);
    for (int32_t id : artifact_.steps[s].outputs)
      if (last_use[id] < 0) last_use[id] = static_cast<int64_t>(s);  // written, never read: free at once
  }
  for (int32_t id : artifact_.outputs) last_use[id] = -1;
  release_after_.assign(artifact_.steps.size(), {});
  for (size_t id = 0; id < artifact_.tensors.size(); ++id)
    if (last_use[id] >= 0 && !artifact_.tensors[id].isConstant())
      release_after_[last_use[id]].push_back(static_cast<int32_t>(id));
  planBuffers();
}

// Walks the plan once, handing each intermediate a buffer that is free at the
// step that writes it: a buffer returns to the free list after the tensor's
// last reader, and a later tensor with the same element type, element count
// and layout takes it over as a view of another shape. Allocating (and
// zero-filling) every intermediate on every run cost about a sixth of a small
// CNN's time on one CPU thread; reuse also keeps the working set in cache.
void Executor::planBuffers() {
  const Artifact& a = artifact_;
  is_graph_output_.assign(a.tensors.size(), 0);
  for (int32_t id : a.outputs) is_graph_output_[id] = 1;
  std::vector<char> is_input(a.tensors.size(), 0);
  for (int32_t id : a.inputs) is_input[id] = 1;
  intermediates_.assign(a.tensors.size(), Tensor());
  using Key = std::tuple<DType, int64_t, Layout>;
  auto key = [&](int32_t id) {
    const TensorType& t = a.tensors[id].type;
    return Key{t.dtype, t.numElements(), t.layout};
  };
  std::map<Key, std::vector<Tensor>> free_buffers;
  size_t live_bytes = 0;
  peak_bytes_ = 0;
  for (size_t s = 0; s < a.steps.size(); ++s) {
    for (int32_t id : a.steps[s].outputs) {
      const TensorType& type = a.tensors[id].type;
      live_bytes += type.byteSize();
      if (is_graph_output_[id]) continue;  // fresh on every run: the caller keeps it
      std::vector<Tensor>& candidates = free_buffers[key(id)];
      if (candidates.empty()) {
        try {
          intermediates_[id] = Tensor(type);
        } catch (const std::bad_alloc&) {
          // A shape too large for this machine (a huge input size, ...): say
          // which tensor and how much, not just "bad_alloc".
          throw std::runtime_error(describeStep(a.steps[s], s) + ": its output '" + a.tensors[id].name + "' (" +
                                   type.toString() + ") needs " + std::to_string(type.byteSize() >> 20) +
                                   " MiB, which cannot be allocated");
        }
      } else {
        intermediates_[id] = candidates.back().reshaped(type.shape);
        candidates.pop_back();
      }
    }
    peak_bytes_ = std::max(peak_bytes_, live_bytes);
    for (int32_t id : release_after_[s]) {
      if (is_input[id]) continue;  // the caller's tensor, never counted
      live_bytes -= a.tensors[id].type.byteSize();
      if (!intermediates_[id].empty()) free_buffers[key(id)].push_back(intermediates_[id]);
    }
  }
}
std::vector<Tensor> Executor::run(const std::vector<Tensor>& inputs) {
  const Artifact& a = artifact_;
  if (inputs.size() != a.inputs.size())
    throw std::invalid_argument("model '" + a.model_name + "' takes " + std::to_string(a.inputs.size()) +
                                " input(s), got " + std::to_string(inputs.size()));
  // The tensor each id holds during this run; null while it is not live.
  std::vector<const Tensor*> env(a.tensors.size(), nullptr);
  for (size_t id = 0; id < a.tensors.size(); ++id)
    if (a.tensors[id].isConstant()) env[id] = &*a.tensors[id].constant;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ArtifactTensor& t = a.tensors[a.inputs[i]];
    if (inputs[i].empty())
      throw std::invalid_argument("input " + std::to_string(i) + " '" + t.name + "': no tensor given");
    if (inputs[i].dtype() != t.type.dtype || inputs[i].shape() != t.type.shape)
      throw std::invalid_argument("input " + std::to_string(i) + " '" + t.name + "' expects " + t.type.toString() +
                                  ", got " + inputs[i].type().toString());
    env[a.inputs[i]] = &inputs[i];
  }

  profile_.clear();
  if (cuda_) {
    std::vector<double> seconds;
    std::vector<Tensor> results = cuda_->run(inputs, options_.profile ? &seconds : nullptr, options_.on_step);
    for (size_t s = 0; s < seconds.size(); ++s) {
      StepProfile sp;
      sp.name = a.steps[s].name;
      sp.kernel = a.steps[s].attrs.getString("cuda.entry", a.steps[s].kernel);
      sp.seconds = seconds[s];
      sp.on_device = true;
      profile_.push_back(std::move(sp));
    }
    peak_bytes_ = cuda_->deviceBytes();
    return results;
  }
  if (options_.profile) profile_.reserve(a.steps.size());
  std::vector<Tensor> graph_outputs(a.tensors.size());  // by id; only those steps write
  using Clock = std::chrono::steady_clock;
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const ArtifactStep& step = a.steps[s];
    KernelArgs args;
    args.attrs = &step.attrs;
    args.inputs.reserve(step.inputs.size());
    for (int32_t id : step.inputs) {
      if (id < 0) {
        args.inputs.push_back(nullptr);
        continue;
      }
      if (!env[id])  // validate() rules this out; kept as a guard against plan bugs
        throw std::runtime_error(describeStep(step, s) + ": input tensor '" + a.tensors[id].name + "' is not live");
      args.inputs.push_back(env[id]);
    }
    args.outputs.reserve(step.outputs.size());
    for (int32_t id : step.outputs) {
      Tensor* out = &intermediates_[id];
      if (is_graph_output_[id]) {
        graph_outputs[id] = Tensor(a.tensors[id].type);
        out = &graph_outputs[id];
      }
      env[id] = out;
      args.outputs.push_back(out);
    }

    Clock::time_point start = options_.profile ? Clock::now() : Clock::time_point{};
    try {
      (*kernels_[s])(args);
    } catch (const std::exception& e) {
      throw std::runtime_error(describeStep(step, s) + ": " + e.what());
    }
    if (options_.profile) {
      StepProfile sp;
      sp.name = step.name;
      sp.kernel = step.kernel;
      sp.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      sp.start_seconds = std::chrono::duration<double>(start.time_since_epoch()).count();
      profile_.push_back(std::move(sp));
#ifdef VDLA_RUNTIME_ACCEL
      if (session_ && !session_->runs().empty()) {
        const accel::LayerRun& run = session_->runs().back();
        profile_.back().on_device = true;
        profile_.back().device_stats = run.result.stats;
        profile_.back().host_before_seconds = run.host_before_seconds;
        profile_.back().device_seconds = run.run_seconds;
        profile_.back().host_after_seconds = run.host_after_seconds;
        profile_.back().host_transformed_bytes = run.transformed_bytes;
        profile_.back().host_uploaded_bytes = run.uploaded_bytes;
        profile_.back().host_packed_data_bytes = run.packed_data_bytes;
        profile_.back().host_unfolded_bytes = run.unfolded_bytes;
        profile_.back().host_downloaded_bytes = run.downloaded_bytes;
        profile_.back().device_kept_bytes = run.kept_bytes;
      }
#endif
    }
#ifdef VDLA_RUNTIME_ACCEL
    if (session_) session_->clearRuns();
#endif
    if (options_.on_step) options_.on_step(s, step, args.outputs);

    for (int32_t id : release_after_[s]) env[id] = nullptr;
  }
  std::vector<Tensor> results;
  results.reserve(a.outputs.size());
  for (int32_t id : a.outputs) results.push_back(*env[id]);
  return results;
}

}  // namespace vdla::rt
