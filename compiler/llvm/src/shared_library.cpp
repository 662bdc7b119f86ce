// Ahead-of-time code: the lowered module emitted as an object for a target
// and linked into a shared library by ld.lld (one linker for x86-64, ARM and
// AArch64). The library exports the step functions and the ABI version; its
// remaining undefined symbols (libm, memcpy) resolve against the loading
// process.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm/IR/Constants.h>
#include <llvm/IR/GlobalVariable.h>

#include "lower.h"
#include "target.h"
#include "vdla/runtime/native_abi.h"
#include "vdla/runtime/native/native_library.h"

namespace vdla::cpu {

namespace {

std::string findLinker() {
  for (const char* candidate : {"/usr/bin/ld.lld-14", "/usr/lib/llvm-14/bin/ld.lld", "/usr/bin/ld.lld"})
    if (access(candidate, X_OK) == 0) return candidate;
  throw std::runtime_error("target 'llvm': no ld.lld found to link the shared library (install package lld-14)");
}

// A private scratch directory, removed with its files on destruction.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/vdla-llvm-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("target 'llvm': cannot create a temporary directory");
    path = tmpl;
  }
  ~TempDir() {
    std::remove((path + "/code.o").c_str());
    std::remove((path + "/code.so").c_str());
    rmdir(path.c_str());
  }
};

}  // namespace

std::vector<uint8_t> linkSharedLibrary(llvm::Module& m, llvm::TargetMachine& machine) {
  llvm::Type* i32 = llvm::Type::getInt32Ty(m.getContext());
  new llvm::GlobalVariable(m, i32, true, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantInt::get(i32, VDLA_NATIVE_ABI_VERSION), "vdla_native_abi_version");
  const std::vector<uint8_t> object = emitObject(m, machine);

  TempDir dir;
  const std::string so = dir.path + "/code.so", obj = dir.path + "/code.o";
  {
    std::ofstream out(obj, std::ios::binary);
    out.write(reinterpret_cast<const char*>(object.data()), static_cast<std::streamsize>(object.size()));
    if (!out) throw std::runtime_error("target 'llvm': cannot write " + obj);
  }
  const std::string linker = findLinker();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("target 'llvm': cannot start the linker");
  if (pid == 0) {
    execl(linker.c_str(), linker.c_str(), "-shared", "--strip-all", "-o", so.c_str(), obj.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("target 'llvm': " + linker + " failed to link the code for " +
                             machine.getTargetTriple().str());
  std::ifstream in(so, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

rt::Artifact compileShared(const ir::Graph& graph, const CpuTarget& target, const CpuCompileOptions& options) {
  std::unique_ptr<llvm::TargetMachine> machine = createTargetMachine(target);
  LoweredModule lowered = lowerGraph(graph, *machine, options);
  rt::Artifact artifact = std::move(lowered.artifact);
  artifact.blobs[rt::native::kNativeLibraryBlob] = linkSharedLibrary(*lowered.module, *machine);
  return artifact;
}

}  // namespace vdla::cpu
