// The reference kernels: plain, obviously correct C++ for every operator of the
// graph IR ("ref.<op>", e.g. "ref.Conv", "ref.com.microsoft.QLinearAdd"). fp32
// operators compute in float with double accumulation where it keeps them
// simple; integer (quantised) operators follow the ONNX specification's integer
// semantics exactly. They are the golden model every backend is compared with.
#pragma once

#include "vdla/runtime/kernel_registry.h"

namespace vdla::rt {

// Adds every reference kernel to the registry (once; later calls do nothing
// for a registry that already has them).
void registerReferenceKernels(KernelRegistry& registry);

// "ref." + qualified operator name.
std::string referenceKernelName(const std::string& qualified_op);

}  // namespace vdla::rt
