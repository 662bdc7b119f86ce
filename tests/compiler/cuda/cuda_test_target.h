// What differs between running the CUDA tests on a GPU (vdla_cuda_gpu_tests)
// and on the emulated driver (vdla_cuda_emu_tests): the same test bodies,
// linked with gpu_target.cpp or emu/emu_target.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "vdla/runtime/artifact.h"

namespace vdla::cuda::testing {

// Readies a compiled artifact for running (the emulation compiles its kernels for the host).
void prepareArtifact(const rt::Artifact& a);
// The input size of the network tests: 224 on a GPU; smaller when emulated,
// where every GPU thread runs on one CPU core.
int64_t networkImageSize();
// Why the TF32 tensor-core path cannot be checked here ("" when it can).
std::string tensorCoreProblem();

}  // namespace vdla::cuda::testing
