// Binds the steps of a CPU-code artifact (target "llvm") to kernels. The code
// itself comes from a symbol lookup: the compiler's JIT in process, or a
// shared library that the runtime loaded (native_library.h). Each step's
// kernel name is "llvm.<symbol>"; the kernel passes the tensors' data
// pointers and a context with the thread pool and the step's workspace.
#pragma once

#include <functional>
#include <string>

#include "vdla/runtime/artifact.h"
#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/native_abi.h"
#include "vdla/runtime/native/thread_pool.h"

namespace vdla::rt::native {

// The prefix of the kernel names of generated steps.
constexpr const char* kNativeKernelPrefix = "llvm.";

// Step attributes the kernel reads: workspace bytes shared by all threads and
// per thread (both default to 0).
constexpr const char* kWorkspaceSharedAttr = "workspace_shared";
constexpr const char* kWorkspaceThreadAttr = "workspace_thread";

bool isNativeKernel(const std::string& kernel_name);
std::string nativeSymbol(const std::string& kernel_name);  // "llvm.f" -> "f"

// Returns the address of a symbol, or nullptr when it is missing.
using SymbolLookup = std::function<void*(const std::string& symbol)>;

// A kernel that calls `fn` for a step. The workspace is allocated per calling
// thread and reused across calls.
KernelFn makeNativeKernel(vdla_step_fn fn, const AttributeMap& step_attrs, ThreadPool& pool);

// Adds a kernel for every generated step of `artifact` whose name the registry
// does not have yet. Throws ArtifactError naming the step when a symbol is
// missing.
void registerNativeKernels(const Artifact& artifact, const SymbolLookup& lookup, KernelRegistry& registry,
                           ThreadPool& pool = ThreadPool::global());

}  // namespace vdla::rt::native
