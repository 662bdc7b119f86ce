#include "cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

#include "vdla/runtime/cuda/cuda_session.h"

namespace vdla::rt::cuda {

namespace {

// Looks a symbol up under each name in turn (the versioned name first).
template <class F>
void bind(void* lib, F& fn, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (void* p = dlsym(lib, name)) {
      fn = reinterpret_cast<F>(p);
      return;
    }
  throw CudaError(std::string("the CUDA driver (libcuda.so.1) lacks ") + *names.begin() +
                  "; it is older than this runtime supports (update the NVIDIA driver)");
}

DriverApi load() {
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw CudaError(std::string("no CUDA driver found (") + (why ? why : "libcuda.so.1 cannot be loaded") +
                    "); target 'cuda' needs an NVIDIA GPU and its driver");
  }
  DriverApi d;
  bind(lib, d.init, {"cuInit"});
  bind(lib, d.driverGetVersion, {"cuDriverGetVersion"});
  bind(lib, d.getErrorName, {"cuGetErrorName"});
  bind(lib, d.getErrorString, {"cuGetErrorString"});
  bind(lib, d.deviceGetCount, {"cuDeviceGetCount"});
  bind(lib, d.deviceGet, {"cuDeviceGet"});
  bind(lib, d.deviceGetName, {"cuDeviceGetName"});
  bind(lib, d.deviceGetAttribute, {"cuDeviceGetAttribute"});
  bind(lib, d.primaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  bind(lib, d.primaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  bind(lib, d.ctxSetCurrent, {"cuCtxSetCurrent"});
  bind(lib, d.ctxSynchronize, {"cuCtxSynchronize"});
  bind(lib, d.memGetInfo, {"cuMemGetInfo_v2"});
  bind(lib, d.memAlloc, {"cuMemAlloc_v2"});
  bind(lib, d.memFree, {"cuMemFree_v2"});
  bind(lib, d.memcpyHtoD, {"cuMemcpyHtoD_v2"});
  bind(lib, d.memcpyDtoH, {"cuMemcpyDtoH_v2"});
  bind(lib, d.moduleLoadDataEx, {"cuModuleLoadDataEx"});
  bind(lib, d.moduleUnload, {"cuModuleUnload"});
  bind(lib, d.moduleGetFunction, {"cuModuleGetFunction"});
  bind(lib, d.launchKernel, {"cuLaunchKernel"});
  bind(lib, d.eventCreate, {"cuEventCreate"});
  bind(lib, d.eventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  bind(lib, d.eventRecord, {"cuEventRecord"});
  bind(lib, d.eventSynchronize, {"cuEventSynchronize"});
  bind(lib, d.eventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  d.check(d.init(0), "cuInit");
  return d;
}

}  // namespace

std::string DriverApi::describe(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (getErrorName) getErrorName(r, &name);
  if (getErrorString) getErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(static_cast<int>(r))) + (text ? " (" + std::string(text) + ")" : "");
}

void DriverApi::check(CUresult r, const std::string& what) const {
  if (r != CUDA_SUCCESS) throw CudaError(what + " failed: " + describe(r));
}

const DriverApi& driver() {
  static std::once_flag once;
  static DriverApi api;
  static std::string failure;
  std::call_once(once, [] {
    try {
      api = load();
    } catch (const CudaError& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw CudaError(failure);
  return api;
}

}  // namespace vdla::rt::cuda
