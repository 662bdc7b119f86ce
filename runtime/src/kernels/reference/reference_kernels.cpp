#include "vdla/runtime/kernels/reference_kernels.h"

#include "register.h"

namespace vdla::rt {

std::string referenceKernelName(const std::string& qualified_op) { return "ref." + qualified_op; }

void registerReferenceKernels(KernelRegistry& registry) {
  if (registry.find(referenceKernelName("Relu"))) return;
  ref::registerElementwise(registry);
}

}  // namespace vdla::rt
