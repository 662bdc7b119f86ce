// Test-side set-up of the emulated CUDA driver: the runtime loads it instead
// of libcuda, and every artifact a test runs first has its generated CUDA C++
// compiled for the host and filed under the hashes of its PTX and cubins.
#pragma once

#include "vdla/runtime/artifact.h"

namespace vdla::cuda::testing {

// Sets VDLA_CUDA_DRIVER to the emulated driver and VDLA_CUDA_EMU_MODULES to
// a directory of this process (kernel objects themselves are cached across
// processes, by the hash of their source). Call before the runtime loads a
// driver; later calls do nothing.
void useEmulatedDriver();

// Compiles `a`'s blob "cuda.source" with the host compiler (-include
// cuda_emulation.h -DVDLA_CUDA_EMULATION) unless cached, and links it under
// the hash of every module image the runtime may load. Throws with the
// compiler's output when the source does not compile.
void prepareEmulation(const rt::Artifact& a);

}  // namespace vdla::cuda::testing
