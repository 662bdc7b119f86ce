#include "cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "vdla/runtime/cuda/cuda_session.h"

namespace vdla::rt::cuda {

namespace {

// The driver library: VDLA_CUDA_DRIVER names another one (a driver installed
// in a non-standard place, or the emulated driver the tests run kernels on).
std::string driverLibrary() {
  const char* env = std::getenv("VDLA_CUDA_DRIVER");
  return env && *env ? env : "libcuda.so.1";
}

// Looks a symbol up under each name in turn (the versioned name first).
template <class F>
void bindSymbol(void* lib, const std::string& path, F& fn, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (void* p = dlsym(lib, name)) {
      fn = reinterpret_cast<F>(p);
      return;
    }
  throw CudaError("the CUDA driver (" + path + ") lacks " + *names.begin() +
                  "; it is older than this runtime supports (update the NVIDIA driver)");
}

DriverApi load() {
  const std::string path = driverLibrary();
  // RTLD_LOCAL: the driver's symbols stay out of the global namespace.
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw CudaError("no CUDA driver found (" + (why ? std::string(why) : path + " cannot be loaded") +
                    "); target 'cuda' needs an NVIDIA GPU and its driver" +
                    (path == "libcuda.so.1" ? "" : " (VDLA_CUDA_DRIVER=" + path + ")"));
  }
  auto bind = [&](auto& fn, std::initializer_list<const char*> names) { bindSymbol(lib, path, fn, names); };
  DriverApi d;
  bind(d.init, {"cuInit"});
  bind(d.driverGetVersion, {"cuDriverGetVersion"});
  bind(d.getErrorName, {"cuGetErrorName"});
  bind(d.getErrorString, {"cuGetErrorString"});
  bind(d.deviceGetCount, {"cuDeviceGetCount"});
  bind(d.deviceGet, {"cuDeviceGet"});
  bind(d.deviceGetName, {"cuDeviceGetName"});
  bind(d.deviceGetAttribute, {"cuDeviceGetAttribute"});
  bind(d.primaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  bind(d.primaryCtxRelease, {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  bind(d.ctxSetCurrent, {"cuCtxSetCurrent"});
  bind(d.ctxSynchronize, {"cuCtxSynchronize"});
  bind(d.memGetInfo, {"cuMemGetInfo_v2"});
  bind(d.memAlloc, {"cuMemAlloc_v2"});
  bind(d.memFree, {"cuMemFree_v2"});
  bind(d.memcpyHtoD, {"cuMemcpyHtoD_v2"});
  bind(d.memcpyDtoH, {"cuMemcpyDtoH_v2"});
  bind(d.moduleLoadDataEx, {"cuModuleLoadDataEx"});
  bind(d.moduleUnload, {"cuModuleUnload"});
  bind(d.moduleGetFunction, {"cuModuleGetFunction"});
  bind(d.launchKernel, {"cuLaunchKernel"});
  bind(d.eventCreate, {"cuEventCreate"});
  bind(d.eventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"});
  bind(d.eventRecord, {"cuEventRecord"});
  bind(d.eventSynchronize, {"cuEventSynchronize"});
  bind(d.eventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  d.check(d.init(0), "cuInit");
  return d;
}

}  // namespace

std::string DriverApi::describe(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (getErrorName) getErrorName(r, &name);
  if (getErrorString) getErrorString(r, &text);
  return std::string(name ? name : "CUDA error " + std::to_string(static_cast<int>(r))) +
         (text ? " (" + std::string(text) + ")" : "");
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
