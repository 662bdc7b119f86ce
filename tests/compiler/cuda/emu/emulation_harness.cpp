#include "emulation_harness.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "emu_abi.h"

namespace vdla::cuda::testing {

namespace fs = std::filesystem;

namespace {

// Set by CMake: the emulated driver, the emulation header, the host compiler
// and the cache of compiled kernel objects.
const char* const kDriver = VDLA_EMU_DRIVER_PATH;
const char* const kHeader = VDLA_EMU_HEADER;
const char* const kCompiler = VDLA_EMU_CXX;
const char* const kCache = VDLA_EMU_CACHE_DIR;

std::string hex(uint64_t v) {
  char buf[20];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

uint64_t fnv(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

fs::path processDir() {
  static const fs::path dir = fs::path(kCache) / ("process-" + std::to_string(getpid()));
  return dir;
}

// Publishes `from` as `to` atomically (another process may compile the same
// source at the same time).
void publish(const fs::path& from, const fs::path& to) { fs::rename(from, to); }

fs::path compileSource(const std::string& source) {
  const std::string key = hex(fnv(source + kCompiler));
  const fs::path object = fs::path(kCache) / ("kernels-" + key + ".so");
  if (fs::exists(object)) return object;
  const std::string tmp = "tmp-" + key + "-" + std::to_string(getpid());
  const fs::path src = fs::path(kCache) / (tmp + ".cu"), obj = fs::path(kCache) / (tmp + ".so"),
                 log = fs::path(kCache) / (tmp + ".log");
  std::ofstream(src, std::ios::binary) << source;
  // -O2 and the host's vector units: the kernels' fmaf become FMA
  // instructions (a libm call otherwise). -w: the CUDA pragmas (unroll) are
  // unknown to the host compiler.
  const std::string cmd = std::string(kCompiler) + " -std=c++17 -O2 -march=native -fPIC -shared -w -x c++" +
                          " -DVDLA_CUDA_EMULATION -include '" + kHeader + "' -o '" + obj.string() + "' '" +
                          src.string() + "' > '" + log.string() + "' 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream in(log);
    const std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    throw std::runtime_error("the generated CUDA C++ does not compile for emulation (" + src.string() + "):\n" +
                             out.substr(0, 4000));
  }
  fs::remove(log);
  fs::remove(src);
  publish(obj, object);
  return object;
}

}  // namespace

void useEmulatedDriver() {
  static const bool once = [] {
    fs::create_directories(processDir());
    setenv("VDLA_CUDA_DRIVER", kDriver, 1);
    setenv("VDLA_CUDA_EMU_MODULES", processDir().c_str(), 1);
    // The per-process links go with the process; the cached objects stay.
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(processDir(), ec);
    });
    return true;
  }();
  (void)once;
}

void prepareEmulation(const rt::Artifact& a) {
  useEmulatedDriver();
  auto source = a.blobs.find("cuda.source");
  if (source == a.blobs.end()) throw std::runtime_error("artifact '" + a.model_name + "' has no cuda.source");
  const fs::path object = compileSource(std::string(source->second.begin(), source->second.end()));
  for (const auto& [name, blob] : a.blobs) {
    if (name != "cuda.ptx" && name.rfind("cuda.cubin.", 0) != 0) continue;
    std::vector<uint8_t> image = blob;
    image.push_back(0);  // as the runtime hands it over
    if (name != "cuda.ptx" && vdla_emu::imageBytes(image.data()) != blob.size())
      throw std::runtime_error(name +
                               ": the ELF headers do not give the cubin's size; "
                               "the emulated driver cannot name it");
    const fs::path link = processDir() / (hex(vdla_emu::imageHash(image.data())) + ".so");
    const fs::path tmp = processDir() / "tmp-link";
    std::error_code ec;
    fs::remove(tmp, ec);
    fs::create_symlink(object, tmp);
    publish(tmp, link);
  }
}

}  // namespace vdla::cuda::testing
