// Runs a compiled artifact: resolves every step's kernel once, checks the
// inputs, plans the intermediate tensors' buffers once (tensors whose
// lifetimes do not overlap share one) and reuses them on every run, and can
// time every step.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vdla/driver/device.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/tensor.h"

namespace vdla::rt {

namespace accel {
class DeviceSession;
}
namespace cuda {
class CudaSession;
}

struct ExecutorOptions {
  // The configuration of the device the artifact will run on. Required for
  // targets that run on an accelerator ("vdla"): the artifact is refused when
  // its configuration hash differs. Ignored for host targets ("ref").
  const hw::HwConfig* device_config = nullptr;
  // The device that runs the offloaded steps of a "vdla" artifact (its config
  // is then the device config). Not owned; must outlive the executor.
  driver::Device* device = nullptr;
  // Time every step (see Executor::profile()).
  bool profile = false;
  // Target vdla: bring every offloaded layer's output back to its host tensor
  // (for per-layer checks through on_step). Off, an output that only
  // offloaded layers read stays in device memory and its host tensor is not
  // written.
  bool device_outputs_to_host = false;
  // The GPU that runs a "cuda" artifact (CUDA device ordinal).
  int cuda_device = 0;
  // Called after each step with its outputs (per-layer comparisons). The
  // tensors are valid only during the call: intermediate buffers are reused by
  // later steps and runs, so a caller that keeps one must clone() it.
  std::function<void(size_t step_index, const ArtifactStep& step, const std::vector<Tensor*>& outputs)> on_step;
};

struct StepProfile {
  std::string name;    // the step's (graph node's) name
  std::string kernel;  // "ref.Conv"
  double seconds = 0;  // of the last run
  // When it began: seconds of std::chrono::steady_clock since its epoch, the
  // clock of the thread pool's task spans (ThreadPool::TaskSpan).
  double start_seconds = 0;
  // Offloaded steps: what the device counted (cycles on timing models).
  bool on_device = false;
  sim::ExecutionStats device_stats;
  // Of `seconds`, the host's work before and after the device run (packing,
  // transfers) and the run itself (a simulator's time on simulated devices).
  double host_before_seconds = 0, device_seconds = 0, host_after_seconds = 0;
  // Offloaded steps: bytes the host transformed (padding, im2col), packed
  // and uploaded, and downloaded and unpacked.
  uint64_t host_transformed_bytes = 0, host_uploaded_bytes = 0, host_downloaded_bytes = 0;
  uint64_t host_packed_data_bytes = 0;  // of the uploaded bytes, the tensors' own
  uint64_t host_unfolded_bytes = 0;     // and those a column unfold copied (not in host_packed_data_bytes)
  // ... and the packed bytes that stayed in device memory instead.
  uint64_t device_kept_bytes = 0;
};

// True for targets whose artifacts run on a VDLA accelerator and therefore
// carry a hardware configuration that must match the device's.
bool targetNeedsDevice(const std::string& target);

// Throws ArtifactError unless the artifact may run on a device with this
// configuration (its hash is the artifact's); the message names both
// configurations and hashes. `source` names the artifact.
void checkArtifactDevice(const Artifact& artifact, const hw::HwConfig& device_config,
                         const std::string& source = "artifact");

class Executor {
 public:
  // Uses the global kernel registry, with the reference kernels registered.
  explicit Executor(Artifact artifact, const ExecutorOptions& options = {});
  ~Executor();
  Executor(Artifact artifact, const KernelRegistry& registry, const ExecutorOptions& options = {});

  const Artifact& artifact() const { return artifact_; }
  size_t numInputs() const { return artifact_.inputs.size(); }
  const ArtifactTensor& input(size_t i) const { return artifact_.tensors.at(artifact_.inputs.at(i)); }
  size_t numOutputs() const { return artifact_.outputs.size(); }
  const ArtifactTensor& output(size_t i) const { return artifact_.tensors.at(artifact_.outputs.at(i)); }

  // Runs the plan on one tensor per graph input (in order, each with its
  // input's element type and shape) and returns the graph outputs. Errors name
  // the input or the step. The returned tensors are the caller's: later runs
  // never write to them (graph outputs get fresh buffers; only intermediates
  // are reused). One run at a time per executor: the intermediates are shared.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

  void setProfiling(bool on) { options_.profile = on; }
  // Per-step times of the last run (empty unless profiling).
  const std::vector<StepProfile>& profile() const { return profile_; }
  // The largest number of bytes of step outputs alive at once in a run.
  size_t peakActivationBytes() const { return peak_bytes_; }

 private:
  void prepare(const KernelRegistry& registry);
  void planBuffers();

  Artifact artifact_;
  ExecutorOptions options_;
  std::unique_ptr<accel::DeviceSession> session_;  // for targets that run on a device
  std::unique_ptr<cuda::CudaSession> cuda_;        // target "cuda": runs the whole plan on the GPU
  KernelRegistry device_registry_;                 // the registry plus the session's kernels
  std::vector<const KernelFn*> kernels_;           // one per step
  // Tensors whose last reader is each step (dead after it runs).
  std::vector<std::vector<int32_t>> release_after_;
  // Every intermediate (a step output that is not a graph output), by tensor
  // id, as a view of its planned buffer; empty for other tensors. Allocated
  // once and written by each run without being cleared: kernels write all of
  // their outputs (see KernelArgs).
  std::vector<Tensor> intermediates_;
  std::vector<char> is_graph_output_;
  std::vector<StepProfile> profile_;
  size_t peak_bytes_ = 0;
};

}  // namespace vdla::rt
