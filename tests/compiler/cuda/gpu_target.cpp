// The CUDA tests on a real GPU: nothing to prepare, full-size networks.
#include "cuda_test_target.h"

namespace vdla::cuda::testing {

void prepareArtifact(const rt::Artifact&) {}
int64_t networkImageSize() { return 224; }
std::string tensorCoreProblem() { return ""; }

}  // namespace vdla::cuda::testing
