// The CUDA tests on the emulated driver: every artifact's kernels are
// compiled for the host first; networks run at 48x48 (the emulator runs
// every GPU thread on one CPU core; 48 also gives odd late feature maps,
// 3x3 and 2x2, where tiles are partly empty); the tensor-core path is not
// emulated.
#include "cuda_test_target.h"
#include "emulation_harness.h"

namespace vdla::cuda::testing {

namespace {

// Before any test asks the runtime for a driver (it loads one per process).
const bool kEmulated = (useEmulatedDriver(), true);

}  // namespace

void prepareArtifact(const rt::Artifact& a) { prepareEmulation(a); }
int64_t networkImageSize() { return 48; }
std::string tensorCoreProblem() {
  return "the TF32 tensor-core path (WMMA) is not emulated; it runs on a GPU only (vdla_cuda_gpu_tests)";
}

}  // namespace vdla::cuda::testing
