#include "vdla/runtime/native/native_library.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include "vdla/runtime/native/native_kernels.h"
#include "vdla/runtime/native_abi.h"

namespace vdla::rt::native {

namespace {

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#elif defined(__arm__)
constexpr uint16_t kHostMachine = EM_ARM;
#else
constexpr uint16_t kHostMachine = EM_NONE;
#endif

const char* machineName(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_386: return "x86";
    default: return "an unknown architecture";
  }
}

}  // namespace

const char* hostElfArchitecture() { return machineName(kHostMachine); }

std::shared_ptr<NativeLibrary> NativeLibrary::load(const std::vector<uint8_t>& image, const std::string& source) {
  // e_ident (16 bytes), e_type (2), e_machine (2): the same offsets in ELF32 and ELF64.
  if (image.size() < 20 || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    throw ArtifactError(source + ": blob '" + kNativeLibraryBlob + "' is not an ELF shared library");
  uint16_t type, machine;
  std::memcpy(&type, image.data() + 16, 2);
  std::memcpy(&machine, image.data() + 18, 2);
  if (type != ET_DYN) throw ArtifactError(source + ": blob '" + kNativeLibraryBlob + "' is not a shared library");
  if (machine != kHostMachine)
    throw ArtifactError(source + ": its CPU code is for " + machineName(machine) + ", but this runtime runs on " +
                        machineName(kHostMachine) + " (recompile with --cpu for this machine)");
  // dlopen needs a file: a private temporary one, unlinked once loaded.
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/vdla-code-XXXXXX";
  std::vector<char> name(path.begin(), path.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) throw ArtifactError(source + ": cannot create a temporary file for its CPU code in " + path);
  size_t written = 0;
  while (written < image.size()) {
    const ssize_t n = write(fd, image.data() + written, image.size() - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  close(fd);
  if (written != image.size()) {
    unlink(name.data());
    throw ArtifactError(source + ": cannot write its CPU code to " + std::string(name.data()));
  }
  void* handle = dlopen(name.data(), RTLD_NOW | RTLD_LOCAL);
  unlink(name.data());
  if (!handle) throw ArtifactError(source + ": cannot load its CPU code: " + dlerror());
  std::shared_ptr<NativeLibrary> lib(new NativeLibrary(handle));
  const auto* version = static_cast<const int32_t*>(lib->symbol("vdla_native_abi_version"));
  if (!version || *version != VDLA_NATIVE_ABI_VERSION)
    throw ArtifactError(source + ": its CPU code uses native ABI version " +
                        (version ? std::to_string(*version) : "?") + ", this runtime " +
                        std::to_string(VDLA_NATIVE_ABI_VERSION));
  return lib;
}

NativeLibrary::~NativeLibrary() { dlclose(handle_); }

void* NativeLibrary::symbol(const std::string& name) const { return dlsym(handle_, name.c_str()); }

void registerLibraryKernels(const Artifact& artifact, KernelRegistry& registry, const std::string& source) {
  auto blob = artifact.blobs.find(kNativeLibraryBlob);
  if (blob == artifact.blobs.end())
    throw ArtifactError(source + ": target '" + artifact.target + "' needs blob '" + kNativeLibraryBlob +
                        "' with its CPU code, which the artifact lacks");
  std::shared_ptr<NativeLibrary> lib = NativeLibrary::load(blob->second, source);
  KernelRegistry bound;
  registerNativeKernels(
      artifact, [&](const std::string& s) { return lib->symbol(s); }, bound);
  for (const std::string& name : bound.names()) {
    if (registry.find(name)) continue;
    KernelFn fn = bound.get(name);
    registry.add(name, [fn, lib](const KernelArgs& args) { fn(args); });
  }
}

}  // namespace vdla::rt::native
