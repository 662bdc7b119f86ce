// An emulated CUDA driver (libvdla_cuda_emu_driver.so) for the tests: the
// entry points the runtime resolves (runtime/src/cuda/cuda_driver.cpp), with
// host memory as device memory and kernels run on the CPU by the block
// scheduler. The runtime loads it when VDLA_CUDA_DRIVER names it.
//
// Kernels: cuModuleLoadData* receives PTX or a cubin; the kernel object for
// it (the artifact's cuda.source compiled by the host compiler with
// cuda_emulation.h, see emulation_harness.cpp) is
// $VDLA_CUDA_EMU_MODULES/<imageHash>.so. Launches run synchronously, so a
// faulty kernel fails its own cuLaunchKernel. Not emulated: timing (events
// measure host time), streams, dynamic shared memory, tensor cores.
#include <cuda.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

#include "block_scheduler.h"
#include "guarded_args.h"

#define EMU_API extern "C" __attribute__((visibility("default")))

namespace {

struct Module {
  void* object = nullptr;
  VdlaEmuThread** current = nullptr;
};

struct Function {
  const VdlaEmuKernel* kernel;
  Module* module;
  std::string name;
};

struct Event {
  std::chrono::steady_clock::time_point at;
};

std::mutex mu;
std::map<uintptr_t, size_t> allocations;  // start -> bytes
std::map<CUfunction, Function*> functions;
thread_local std::string last_error;  // the details of the last failed launch or load
int context_token;                    // the primary context's handle points here

constexpr size_t kTotalMemory = size_t{64} << 30;

// A copy between host memory and [p, p + bytes) of emulated device memory is
// valid only inside one allocation.
bool insideAllocation(CUdeviceptr p, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = allocations.upper_bound(static_cast<uintptr_t>(p));
  if (it == allocations.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

CUresult fail(CUresult r, const std::string& what) {
  last_error = what;
  return r;
}

void writeLog(unsigned n, CUjit_option* options, void** values, const std::string& text) {
  for (unsigned i = 0; i < n; ++i)
    if (options[i] == CU_JIT_ERROR_LOG_BUFFER) {
      size_t size = 0;
      for (unsigned j = 0; j < n; ++j)
        if (options[j] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) size = reinterpret_cast<uintptr_t>(values[j]);
      if (size) std::snprintf(static_cast<char*>(values[i]), size, "%s", text.c_str());
    }
}

}  // namespace

EMU_API CUresult cuInit(unsigned) { return CUDA_SUCCESS; }
EMU_API CUresult cuDriverGetVersion(int* v) {
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}

EMU_API CUresult cuGetErrorName(CUresult r, const char** name) {
  switch (r) {
    case CUDA_SUCCESS: *name = "CUDA_SUCCESS"; break;
    case CUDA_ERROR_INVALID_VALUE: *name = "CUDA_ERROR_INVALID_VALUE"; break;
    case CUDA_ERROR_OUT_OF_MEMORY: *name = "CUDA_ERROR_OUT_OF_MEMORY"; break;
    case CUDA_ERROR_INVALID_IMAGE: *name = "CUDA_ERROR_INVALID_IMAGE"; break;
    case CUDA_ERROR_NOT_FOUND: *name = "CUDA_ERROR_NOT_FOUND"; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *name = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case CUDA_ERROR_LAUNCH_FAILED: *name = "CUDA_ERROR_LAUNCH_FAILED"; break;
    case CUDA_ERROR_NOT_SUPPORTED: *name = "CUDA_ERROR_NOT_SUPPORTED"; break;
    default: *name = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// The emulation's details of the last failure (which block and thread, what
// went wrong), so that the runtime's message carries them.
EMU_API CUresult cuGetErrorString(CUresult r, const char** text) {
  if (r == CUDA_SUCCESS) {
    *text = "no error";
    return CUDA_SUCCESS;
  }
  *text = last_error.empty() ? "emulated driver error" : last_error.c_str();
  return CUDA_SUCCESS;
}

EMU_API CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}
EMU_API CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return fail(CUDA_ERROR_INVALID_VALUE, "device " + std::to_string(ordinal));
  *d = 0;
  return CUDA_SUCCESS;
}
EMU_API CUresult cuDeviceGetName(char* name, int len, CUdevice) {
  std::snprintf(name, static_cast<size_t>(len), "%s", "VDLA CUDA emulator (CPU)");
  return CUDA_SUCCESS;
}
// Compute capability 9.0 unless VDLA_CUDA_EMU_ARCH says otherwise (e.g.
// sm_75, to take the PTX path of an artifact without an sm_75 cubin).
EMU_API CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute attr, CUdevice) {
  const char* env = std::getenv("VDLA_CUDA_EMU_ARCH");
  const int arch = env && std::strncmp(env, "sm_", 3) == 0 ? std::atoi(env + 3) : 90;
  switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = arch / 10; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = arch % 10; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 1; return CUDA_SUCCESS;
    default: return fail(CUDA_ERROR_NOT_SUPPORTED, "device attribute " + std::to_string(attr) + " is not emulated");
  }
}

EMU_API CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = reinterpret_cast<CUcontext>(&context_token);
  return CUDA_SUCCESS;
}
EMU_API CUresult cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }
EMU_API CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }
EMU_API CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }

EMU_API CUresult cuMemGetInfo(size_t* free_b, size_t* total_b) {
  std::lock_guard<std::mutex> lock(mu);
  size_t used = 0;
  for (auto& [p, n] : allocations) used += n;
  *total_b = kTotalMemory;
  *free_b = kTotalMemory - std::min(used, kTotalMemory);
  return CUDA_SUCCESS;
}
EMU_API CUresult cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  if (bytes == 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc of 0 bytes");
  void* m = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m) return fail(CUDA_ERROR_OUT_OF_MEMORY, "host memory exhausted");
  std::lock_guard<std::mutex> lock(mu);
  allocations[reinterpret_cast<uintptr_t>(m)] = bytes;
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}
EMU_API CUresult cuMemFree(CUdeviceptr p) {
  std::lock_guard<std::mutex> lock(mu);
  auto it = allocations.find(static_cast<uintptr_t>(p));
  if (it == allocations.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFree of an address cuMemAlloc did not return");
  std::free(reinterpret_cast<void*>(p));
  allocations.erase(it);
  return CUDA_SUCCESS;
}
EMU_API CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  if (!insideAllocation(dst, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoD outside an allocation");
  std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
  return CUDA_SUCCESS;
}
EMU_API CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  if (!insideAllocation(src, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoH outside an allocation");
  std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
  return CUDA_SUCCESS;
}

EMU_API CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned n, CUjit_option* options,
                                    void** values) {
  const char* dir = std::getenv("VDLA_CUDA_EMU_MODULES");
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.so", static_cast<unsigned long long>(vdla_emu::imageHash(image)));
  std::string why;
  Module m;
  if (!dir || !*dir) {
    why = "VDLA_CUDA_EMU_MODULES is not set: it names the directory of the kernel objects the tests compile";
  } else {
    std::error_code ec;
    // The object itself, not the link: dlopen recognises a loaded object by name.
    const std::filesystem::path path = std::filesystem::canonical(std::filesystem::path(dir) / name, ec);
    if (ec) {
      why = std::string("no kernel object ") + name + " in " + dir +
            " for this image; compile the artifact's cuda.source for emulation first";
    } else if (!(m.object = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      why = dlerror();
    } else if (!(m.current = static_cast<VdlaEmuThread**>(dlsym(m.object, "vdla_emu_current")))) {
      why = path.string() + " was not compiled with cuda_emulation.h";
      dlclose(m.object);
    }
  }
  if (!why.empty()) {
    writeLog(n, options, values, why);
    return fail(CUDA_ERROR_INVALID_IMAGE, why);
  }
  *module = reinterpret_cast<CUmodule>(new Module(m));
  return CUDA_SUCCESS;
}

EMU_API CUresult cuModuleUnload(CUmodule module) {
  Module* m = reinterpret_cast<Module*>(module);
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = functions.begin(); it != functions.end();)
      if (it->second->module == m) {
        delete it->second;
        it = functions.erase(it);
      } else {
        ++it;
      }
  }
  dlclose(m->object);
  delete m;
  return CUDA_SUCCESS;
}

EMU_API CUresult cuModuleGetFunction(CUfunction* fn, CUmodule module, const char* name) {
  Module* m = reinterpret_cast<Module*>(module);
  const auto* k = static_cast<const VdlaEmuKernel*>(dlsym(m->object, (std::string(name) + "__emu").c_str()));
  if (!k) return fail(CUDA_ERROR_NOT_FOUND, std::string("no kernel '") + name + "' in the module");
  auto* f = new Function{k, m, name};
  std::lock_guard<std::mutex> lock(mu);
  *fn = reinterpret_cast<CUfunction>(f);
  functions[*fn] = f;
  return CUDA_SUCCESS;
}

EMU_API CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned shared_bytes, CUstream, void** params, void** extra) {
  Function* f;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = functions.find(fn);
    if (it == functions.end()) return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernel of an unknown function");
    f = it->second;
  }
  const std::string where = "kernel " + f->name + " (grid " + std::to_string(gx) + "x" + std::to_string(gy) + "x" +
                            std::to_string(gz) + ", block " + std::to_string(bx) + "x" + std::to_string(by) + "x" +
                            std::to_string(bz) + "): ";
  if (shared_bytes || extra)
    return fail(CUDA_ERROR_NOT_SUPPORTED, where + "dynamic shared memory and 'extra' are not emulated");
  if (!params && f->kernel->num_args) return fail(CUDA_ERROR_INVALID_VALUE, where + "no kernel parameters");
  for (int i = 0; i < f->kernel->num_args; ++i) {
    CUdeviceptr p;
    std::memcpy(&p, params[i], sizeof(p));
    const size_t bytes = static_cast<size_t>(f->kernel->arg_bytes[i]);
    if (bytes && !insideAllocation(p, bytes))
      return fail(CUDA_ERROR_INVALID_VALUE, where + "argument " + std::to_string(i) + " (" + std::to_string(bytes) +
                                                " bytes) is not inside one device allocation");
  }
  vdla_emu::GuardedArgs args(*f->kernel, params);
  vdla_emu::GridLaunch launch{f->kernel,    f->module->current, {gx, gy, gz},
                              {bx, by, bz}, args.params(),      [&](uintptr_t a) { return args.describe(a); }};
  std::string error = vdla_emu::runGrid(launch);
  if (!error.empty()) return fail(CUDA_ERROR_LAUNCH_FAILED, where + error);
  error = args.finish();
  if (!error.empty()) return fail(CUDA_ERROR_ILLEGAL_ADDRESS, where + error);
  return CUDA_SUCCESS;
}

EMU_API CUresult cuEventCreate(CUevent* e, unsigned) {
  *e = reinterpret_cast<CUevent>(new Event{std::chrono::steady_clock::now()});
  return CUDA_SUCCESS;
}
EMU_API CUresult cuEventDestroy(CUevent e) {
  delete reinterpret_cast<Event*>(e);
  return CUDA_SUCCESS;
}
EMU_API CUresult cuEventRecord(CUevent e, CUstream) {
  reinterpret_cast<Event*>(e)->at = std::chrono::steady_clock::now();
  return CUDA_SUCCESS;
}
EMU_API CUresult cuEventSynchronize(CUevent) { return CUDA_SUCCESS; }
EMU_API CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  *ms =
      std::chrono::duration<float, std::milli>(reinterpret_cast<Event*>(end)->at - reinterpret_cast<Event*>(start)->at)
          .count();
  return CUDA_SUCCESS;
}
