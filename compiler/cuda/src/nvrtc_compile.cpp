// NVRTC: the generated translation unit to PTX (virtual architecture) or a
// cubin (real architecture). A failed compilation reports NVRTC's log, and for
// each error line the step whose kernel it is in (the generator writes a
// "// step N 'name' (Op)" line above every kernel).
#include <nvrtc.h>

#include <memory>
#include <regex>
#include <sstream>

#include "vdla/compiler/cuda/cuda_backend.h"

#ifndef VDLA_CUDA_INCLUDE_DIR
#error "VDLA_CUDA_INCLUDE_DIR must name the CUDA toolkit's include directory"
#endif

namespace vdla::cuda {

namespace {

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw CudaBackendError(std::string("NVRTC: ") + what + " failed: " + nvrtcGetErrorString(r));
}

struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) nvrtcDestroyProgram(&p);
  }
};

// "step 12 'conv1' (Conv)" for the kernel containing 1-based `line`, or "".
std::string stepAtLine(const std::string& source, size_t line) {
  std::istringstream in(source);
  std::string l, last;
  for (size_t n = 1; std::getline(in, l) && n <= line; ++n)
    if (l.rfind("// step ", 0) == 0) last = l.substr(3);
  return last;
}

// The log with "[in step N 'name' (Op)]" after every error line that points into a kernel.
std::string annotate(const std::string& log, const std::string& source, const std::string& name) {
  std::istringstream in(log);
  std::string line, out;
  const std::regex where(std::regex_replace(name, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                         R"(\((\d+)\): error)");
  std::string first_step;
  while (std::getline(in, line)) {
    out += line;
    std::smatch m;
    if (std::regex_search(line, m, where)) {
      const std::string step = stepAtLine(source, std::stoul(m[1]));
      if (!step.empty()) {
        out += "  [in " + step + "]";
        if (first_step.empty()) first_step = step;
      }
    }
    out += "\n";
  }
  return (first_step.empty() ? "" : "the kernel of " + first_step + " does not compile:\n") + out;
}

}  // namespace

std::string nvrtcVersion() {
  int major = 0, minor = 0;
  check(::nvrtcVersion(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

NvrtcOutput compileWithNvrtc(const std::string& source, const std::string& arch, const std::string& name) {
  const bool real = arch.rfind("sm_", 0) == 0;
  if (!real && arch.rfind("compute_", 0) != 0)
    throw CudaBackendError("NVRTC: architecture '" + arch + "' is neither sm_XY nor compute_XY");
  Program prog;
  check(nvrtcCreateProgram(&prog.p, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  std::vector<std::string> opts = {"--gpu-architecture=" + arch, "--std=c++17", "-default-device",
                                   "--include-path=" VDLA_CUDA_INCLUDE_DIR};
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(prog.p, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  std::string log;
  if (nvrtcGetProgramLogSize(prog.p, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    nvrtcGetProgramLog(prog.p, log.data());
    log.resize(log_size - 1);
  }
  if (r != NVRTC_SUCCESS)
    throw CudaBackendError("NVRTC compilation for " + arch + " failed (" + nvrtcGetErrorString(r) +
                           "): " + annotate(log, source, name));
  NvrtcOutput out;
  out.log = log;
  if (real) {
    size_t n = 0;
    check(nvrtcGetCUBINSize(prog.p, &n), "nvrtcGetCUBINSize");
    out.cubin.resize(n);
    check(nvrtcGetCUBIN(prog.p, reinterpret_cast<char*>(out.cubin.data())), "nvrtcGetCUBIN");
  } else {
    size_t n = 0;
    check(nvrtcGetPTXSize(prog.p, &n), "nvrtcGetPTXSize");
    out.ptx.resize(n);
    check(nvrtcGetPTX(prog.p, out.ptx.data()), "nvrtcGetPTX");
    if (!out.ptx.empty() && out.ptx.back() == '\0') out.ptx.pop_back();
  }
  return out;
}

}  // namespace vdla::cuda
