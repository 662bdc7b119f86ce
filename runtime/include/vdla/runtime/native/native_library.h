// Loads the shared library that the CPU back end stores in an artifact (blob
// "llvm.so") with dlopen and binds the artifact's steps to its functions.
// This is how a saved "llvm" artifact runs on a machine without LLVM, the
// boards' ARM cores included.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vdla/runtime/artifact.h"
#include "vdla/runtime/kernel_registry.h"

namespace vdla::rt::native {

constexpr const char* kNativeLibraryBlob = "llvm.so";

class NativeLibrary {
 public:
  // Checks that the ELF image is a shared library for this machine's
  // architecture and ABI version, then loads it. Errors are ArtifactError
  // naming `source`.
  static std::shared_ptr<NativeLibrary> load(const std::vector<uint8_t>& image, const std::string& source);
  ~NativeLibrary();
  NativeLibrary(const NativeLibrary&) = delete;
  NativeLibrary& operator=(const NativeLibrary&) = delete;

  void* symbol(const std::string& name) const;  // nullptr when missing

 private:
  explicit NativeLibrary(void* handle) : handle_(handle) {}
  void* handle_;
};

// The architecture this runtime was built for, as ELF names it ("x86-64",
// "arm", "aarch64").
const char* hostElfArchitecture();

// Registers a kernel for every generated step of an "llvm" artifact from its
// library blob; the kernels keep the library loaded. Throws ArtifactError
// when the blob is missing or built for another machine.
void registerLibraryKernels(const Artifact& artifact, KernelRegistry& registry, const std::string& source = "artifact");

}  // namespace vdla::rt::native
