#include "vdla/runtime/kernels/reference_kernels.h"

#include <mutex>

#include "register.h"

namespace vdla::rt {

std::string referenceKernelName(const std::string& qualified_op) { return "ref." + qualified_op; }

void registerReferenceKernels(KernelRegistry& registry) {
  // Executors on several threads may call this at once for the global registry.
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  if (registry.find(referenceKernelName("Relu"))) return;
  KernelRegistry families;
  ref::registerElementwise(families);
  ref::registerConv(families);
  ref::registerMatMul(families);
  ref::registerPool(families);
  ref::registerNormalization(families);
  ref::registerReduce(families);
  ref::registerTensorOps(families);
  ref::registerSlice(families);
  ref::registerSelection(families);
  ref::registerQuantize(families);
  ref::registerVdla(families);
  // Bad arguments caught by the helpers kernels call (attribute getters, typed
  // tensor access) surface as KernelError like the kernels' own checks.
  for (const std::string& name : families.names()) {
    KernelFn fn = families.get(name);
    registry.add(name, [fn](const KernelArgs& args) {
      try {
        fn(args);
      } catch (const std::invalid_argument& e) {
        throw KernelError(e.what());
      } catch (const std::out_of_range& e) {
        throw KernelError(e.what());
      }
    });
  }
}

}  // namespace vdla::rt
