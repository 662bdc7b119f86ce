// The CUDA backend: CUDA C++ for a whole network, compiled by NVRTC when the
// model is compiled, stored in the artifact as PTX and cubins and run by the
// runtime through the CUDA driver API (runtime/src/cuda). See
// docs/cuda-backend.md.
//
// The backend works on the execution plan of the reference lowering (steps
// naming "ref.<Op>", typed tensors, constant weights): it fuses a convolution
// with the residual Add that consumes it, emits one kernel per step (identical
// kernels are emitted once), compiles the translation unit and rewrites every
// step into a launch ("cuda.launch" with entry name and launch configuration).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/compiler/cuda_options.h"
#include "vdla/runtime/artifact.h"

namespace vdla::cuda {

// Any failure of the backend: an operator or element type it cannot run, a
// shape beyond its limits, or an NVRTC error (the message carries the log and
// names the kernel of the failing step where NVRTC's log allows).
class CudaBackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Launch of one step: kernel arguments are the step's present inputs (ids not
// -1) in order, then its outputs, each a device pointer to the tensor.
struct KernelLaunch {
  std::string entry;  // extern "C" name in the module
  int64_t grid[3] = {1, 1, 1};
  int64_t block[3] = {1, 1, 1};
};

struct GeneratedModule {
  std::string source;                  // the complete translation unit
  std::vector<KernelLaunch> launches;  // one per step of `plan`
  rt::Artifact plan;                   // the plan after fusion (steps match `launches`)
  std::vector<std::string> entries;    // distinct kernels in the source
};

// CUDA C++ for a reference-lowered plan. Throws CudaBackendError naming the
// step (index, node name, operator) it cannot generate.
GeneratedModule generateCudaModule(const rt::Artifact& plan, const CudaCodegenOptions& options);

struct NvrtcOutput {
  std::string ptx;             // for the virtual architecture (empty unless asked)
  std::vector<uint8_t> cubin;  // for the real architecture (empty unless asked)
  std::string log;             // NVRTC's log (warnings)
};

// Compiles `source` with NVRTC for `arch`: "compute_90" gives PTX, "sm_90" a
// cubin. `name` names the translation unit in diagnostics. Throws
// CudaBackendError with the log on failure.
NvrtcOutput compileWithNvrtc(const std::string& source, const std::string& arch,
                             const std::string& name = "vdla_module.cu");

// The whole backend: generate, compile, and return the plan rewritten into
// launches, with blobs "cuda.source", "cuda.ptx" and "cuda.cubin.<sm_XY>".
rt::Artifact lowerForCuda(const rt::Artifact& plan, const CudaCodegenOptions& options);

// The implicit-GEMM convolution kernels CudaCodegenOptions::conv_kernel may
// name ("tf32-64x64", "simt-128x128", ...), for tuning and benchmarks.
std::vector<std::string> convKernelNames();

// NVRTC's version as "13.0".
std::string nvrtcVersion();

}  // namespace vdla::cuda
