#include "vdla/runtime/native/native_kernels.h"

#include <cstdlib>
#include <memory>

namespace vdla::rt::native {

namespace {

// Grow-only, 64-byte aligned scratch memory of the calling thread, so that
// executors on several threads never share a workspace.
uint8_t* threadWorkspace(size_t bytes) {
  struct Buffer {
    void* data = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffer;
  if (bytes > buffer.size) {
    std::free(buffer.data);
    const size_t rounded = (bytes + 63) / 64 * 64;
    buffer.data = std::aligned_alloc(64, rounded);
    if (!buffer.data) throw std::bad_alloc();
    buffer.size = rounded;
  }
  return static_cast<uint8_t*>(buffer.data);
}

}  // namespace

bool isNativeKernel(const std::string& name) { return name.rfind(kNativeKernelPrefix, 0) == 0; }

std::string nativeSymbol(const std::string& name) { return name.substr(std::string(kNativeKernelPrefix).size()); }

KernelFn makeNativeKernel(vdla_step_fn fn, const AttributeMap& attrs, ThreadPool& pool) {
  const int64_t shared = attrs.getInt(kWorkspaceSharedAttr, 0);
  const int64_t per_thread = attrs.getInt(kWorkspaceThreadAttr, 0);
  if (shared < 0 || per_thread < 0) throw KernelError("negative workspace size");
  return [fn, shared, per_thread, &pool](const KernelArgs& args) {
    std::vector<void*> tensors;
    tensors.reserve(args.inputs.size() + args.outputs.size());
    for (const Tensor* t : args.inputs) tensors.push_back(t ? const_cast<void*>(t->raw()) : nullptr);
    for (Tensor* t : args.outputs) tensors.push_back(t ? t->raw() : nullptr);
    const size_t bytes = static_cast<size_t>(shared + per_thread * pool.numThreads());
    const vdla_native_ctx ctx = pool.context(bytes ? threadWorkspace(bytes) : nullptr);
    fn(tensors.data(), &ctx);
  };
}

void registerNativeKernels(const Artifact& artifact, const SymbolLookup& lookup, KernelRegistry& registry,
                           ThreadPool& pool) {
  for (size_t i = 0; i < artifact.steps.size(); ++i) {
    const ArtifactStep& step = artifact.steps[i];
    if (!isNativeKernel(step.kernel) || registry.find(step.kernel)) continue;
    void* address = lookup(nativeSymbol(step.kernel));
    if (!address)
      throw ArtifactError("step " + std::to_string(i) + " '" + step.name + "': generated code has no symbol '" +
                          nativeSymbol(step.kernel) + "'");
    registry.add(step.kernel, makeNativeKernel(reinterpret_cast<vdla_step_fn>(address), step.attrs, pool));
  }
}

}  // namespace vdla::rt::native
