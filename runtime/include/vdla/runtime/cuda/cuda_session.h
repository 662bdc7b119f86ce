// Runs "cuda" artifacts on an NVIDIA GPU through the CUDA driver API. The
// driver (libcuda.so.1) is loaded with dlopen when a session starts, so the
// runtime links neither it nor the CUDA runtime, and a machine without a GPU
// gets a clear error instead of a load failure. Kernels come from the
// artifact: the cubin for the device's architecture when there is one, the
// PTX (JIT-compiled by the driver) otherwise.
//
// Memory: constants are uploaded once; step outputs and graph inputs live in
// one device arena whose offsets are planned from the tensors' lifetimes
// (memory_plan.h), so tensors that are never alive together share memory.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/runtime/artifact.h"
#include "vdla/runtime/tensor.h"

namespace vdla::rt::cuda {

// Any failure on the GPU side: no driver, no device, out of memory, a kernel
// that fails to load or to run. Messages name the step where there is one.
class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Whether this runtime was built with the CUDA backend (VDLA_WITH_CUDA).
bool runtimeHasCuda();

// "" when device `ordinal` can run kernels; otherwise why not ("no CUDA
// driver found (libcuda.so.1: ...)", "no CUDA device", ...). Never throws.
std::string deviceProblem(int ordinal = 0);

using StepCallback =
    std::function<void(size_t step_index, const ArtifactStep& step, const std::vector<Tensor*>& outputs)>;

class CudaSession {
 public:
  // Loads the driver, creates a context on device `ordinal`, loads the module
  // and allocates and fills device memory. Throws CudaError.
  CudaSession(const Artifact& artifact, int ordinal = 0);
  ~CudaSession();
  CudaSession(const CudaSession&) = delete;
  CudaSession& operator=(const CudaSession&) = delete;

  // Runs the plan (inputs already checked against the artifact). With
  // `step_seconds`, every step is timed with events (one entry per step);
  // `on_step` gets each step's outputs copied back to the host.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, std::vector<double>* step_seconds = nullptr,
                          const StepCallback& on_step = nullptr);

  std::string deviceName() const;
  // "sm_90"
  std::string deviceArch() const;
  // Bytes of device memory this session holds (constants and arena).
  size_t deviceBytes() const;
  // Which code was loaded: "cubin sm_90" or "ptx compute_90 (JIT)".
  std::string loadedCode() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vdla::rt::cuda
