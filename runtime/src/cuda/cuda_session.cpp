#include "vdla/runtime/cuda/cuda_session.h"

#include <cstring>

#include "cuda_driver.h"
#include "memory_plan.h"

namespace vdla::rt::cuda {

namespace {

std::string describeStep(const ArtifactStep& s, size_t index) {
  return "step " + std::to_string(index) + (s.name.empty() ? "" : " '" + s.name + "'") + " (" +
         s.attrs.getString("cuda.op", s.kernel) + ")";
}

std::string mib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

}  // namespace

bool runtimeHasCuda() { return true; }

std::string deviceProblem(int ordinal) {
  try {
    const DriverApi& d = driver();
    int count = 0;
    d.check(d.deviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) return "no CUDA device (the driver is present but sees no GPU)";
    if (ordinal < 0 || ordinal >= count)
      return "CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) + " device(s))";
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

struct CudaSession::Impl {
  const DriverApi& d;
  const Artifact& a;
  CUdevice dev = 0;
  CUcontext ctx = nullptr;
  CUmodule module = nullptr;
  CUdeviceptr constants = 0, arena = 0;
  size_t constant_bytes = 0, arena_bytes = 0;
  std::vector<CUdeviceptr> ptr;  // per tensor id; 0 for unused tensors
  struct Launch {
    CUfunction fn = nullptr;
    unsigned grid[3], block[3];
    bool empty = false;         // a zero-sized grid: nothing to compute
    std::vector<int32_t> args;  // tensor ids: present inputs, then outputs
  };
  std::vector<Launch> launches;
  std::string name, arch, loaded;

  Impl(const DriverApi& api, const Artifact& artifact) : d(api), a(artifact) {}

  ~Impl() {
    // Teardown failures (a context already broken by a faulting kernel) are
    // not reportable from a destructor; the resources go with the context.
    if (ctx) d.ctxSetCurrent(ctx);
    if (arena) d.memFree(arena);
    if (constants) d.memFree(constants);
    if (module) d.moduleUnload(module);
    if (ctx) d.primaryCtxRelease(dev);
  }

  CUdeviceptr allocate(size_t bytes, const std::string& what) {
    CUdeviceptr p = 0;
    const CUresult r = d.memAlloc(&p, std::max<size_t>(bytes, 1));
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      size_t free_b = 0, total_b = 0;
      d.memGetInfo(&free_b, &total_b);
      throw CudaError("out of device memory: cannot allocate " + mib(bytes) + " (" + std::to_string(bytes) +
                      " bytes) for " + what + " on " + name + " (" + mib(free_b) + " free of " + mib(total_b) + ")");
    }
    d.check(r, "cuMemAlloc of " + std::to_string(bytes) + " bytes for " + what);
    return p;
  }

  void open(int ordinal) {
    int count = 0;
    d.check(d.deviceGetCount(&count), "cuDeviceGetCount");
    if (count == 0) throw CudaError("no CUDA device (the driver is present but sees no GPU)");
    if (ordinal < 0 || ordinal >= count)
      throw CudaError("CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) +
                      " device(s))");
    d.check(d.deviceGet(&dev, ordinal), "cuDeviceGet");
    char buf[256] = {0};
    d.check(d.deviceGetName(buf, sizeof(buf) - 1, dev), "cuDeviceGetName");
    name = buf;
    int major = 0, minor = 0;
    d.check(d.deviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute");
    d.check(d.deviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute");
    arch = "sm_" + std::to_string(major * 10 + minor);
    d.check(d.primaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    d.check(d.ctxSetCurrent(ctx), "cuCtxSetCurrent");
  }

  // The cubin for this device's architecture, else the PTX for the driver to JIT.
  void loadModule() {
    std::string image;
    auto cubin = a.blobs.find("cuda.cubin." + arch);
    if (cubin != a.blobs.end()) {
      image.assign(cubin->second.begin(), cubin->second.end());
      loaded = "cubin " + arch;
    } else {
      auto ptx = a.blobs.find("cuda.ptx");
      if (ptx == a.blobs.end())
        throw CudaError("the artifact has no cubin for " + arch + " and no PTX; recompile with --cuda-arch " + arch);
      const std::string ptx_arch = a.metadata.count("cuda.ptx_arch") ? a.metadata.at("cuda.ptx_arch") : "";
      if (ptx_arch.rfind("compute_", 0) == 0 && std::stoi(ptx_arch.substr(8)) > std::stoi(arch.substr(3)))
        throw CudaError("the artifact's PTX is for " + ptx_arch + " but " + name + " is " + arch +
                        "; recompile with --cuda-arch " + arch);
      image.assign(ptx->second.begin(), ptx->second.end());
      loaded = "ptx " + ptx_arch + " (JIT)";
    }
    image.push_back('\0');  // PTX is text and must be NUL-terminated
    std::vector<char> log(8192, 0);
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
    const CUresult r = d.moduleLoadDataEx(&module, image.data(), 2, opts, values);
    if (r != CUDA_SUCCESS) {
      module = nullptr;
      throw CudaError("loading the kernels (" + loaded + ") on " + name + " failed: " + d.describe(r) +
                      (log[0] ? "\n" + std::string(log.data()) : ""));
    }
  }

  void bindSteps() {
    for (size_t s = 0; s < a.steps.size(); ++s) {
      const ArtifactStep& step = a.steps[s];
      auto fail = [&](const std::string& what) { throw CudaError(describeStep(step, s) + ": " + what); };
      if (step.kernel != "cuda.launch") fail("kernel '" + step.kernel + "' is not a CUDA launch");
      Launch l;
      const std::string entry = step.attrs.getString("cuda.entry", "");
      const std::vector<int64_t> grid = step.attrs.getInts("cuda.grid", {});
      const std::vector<int64_t> block = step.attrs.getInts("cuda.block", {});
      if (entry.empty() || grid.size() != 3 || block.size() != 3) fail("launch attributes are missing or malformed");
      for (int i = 0; i < 3; ++i) {
        if (grid[i] < 0 || grid[i] > (i == 0 ? 0x7fffffffLL : 65535) || block[i] < 1 || block[i] > 1024)
          fail("launch configuration out of range");
        l.grid[i] = static_cast<unsigned>(grid[i]);
        l.block[i] = static_cast<unsigned>(block[i]);
        l.empty |= grid[i] == 0;
      }
      if (block[0] * block[1] * block[2] > 1024) fail("more than 1024 threads per block");
      const CUresult r = d.moduleGetFunction(&l.fn, module, entry.c_str());
      if (r != CUDA_SUCCESS) fail("kernel '" + entry + "' is not in the module: " + d.describe(r));
      for (int32_t id : step.inputs)
        if (id >= 0) l.args.push_back(id);
      for (int32_t id : step.outputs) l.args.push_back(id);
      launches.push_back(std::move(l));
    }
  }

  void allocateTensors() {
    ptr.assign(a.tensors.size(), 0);
    std::vector<size_t> const_offset(a.tensors.size(), 0);
    for (size_t id = 0; id < a.tensors.size(); ++id)
      if (a.tensors[id].isConstant()) {
        const_offset[id] = constant_bytes;
        constant_bytes += (a.tensors[id].type.byteSize() + 255) / 256 * 256;
      }
    if (constant_bytes) {
      constants = allocate(constant_bytes, "the weights and constants");
      for (size_t id = 0; id < a.tensors.size(); ++id)
        if (a.tensors[id].isConstant()) {
          ptr[id] = constants + const_offset[id];
          const Tensor& t = *a.tensors[id].constant;
          if (t.byteSize())
            d.check(d.memcpyHtoD(ptr[id], t.raw(), t.byteSize()), "uploading constant '" + a.tensors[id].name + "'");
        }
    }
    const MemoryPlan plan = planMemory(a);
    arena_bytes = plan.arena_bytes;
    if (arena_bytes) arena = allocate(arena_bytes, "the activations (" + std::to_string(a.steps.size()) + " steps)");
    for (size_t id = 0; id < a.tensors.size(); ++id)
      if (plan.offset[id] != MemoryPlan::kNone) ptr[id] = arena + plan.offset[id];
  }

  void download(int32_t id, Tensor& t) {
    if (t.byteSize()) d.check(d.memcpyDtoH(t.raw(), ptr[id], t.byteSize()), "downloading '" + a.tensors[id].name + "'");
  }
};

CudaSession::CudaSession(const Artifact& artifact, int ordinal) {
  const DriverApi& d = driver();
  impl_ = std::make_unique<Impl>(d, artifact);
  impl_->open(ordinal);
  impl_->loadModule();
  impl_->bindSteps();
  impl_->allocateTensors();
}

CudaSession::~CudaSession() = default;

std::vector<Tensor> CudaSession::run(const std::vector<Tensor>& inputs, std::vector<double>* step_seconds,
                                     const StepCallback& on_step) {
  Impl& m = *impl_;
  const DriverApi& d = m.d;
  const Artifact& a = m.a;
  d.check(d.ctxSetCurrent(m.ctx), "cuCtxSetCurrent");
  if (inputs.size() != a.inputs.size()) throw CudaError("wrong number of inputs");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const int32_t id = a.inputs[i];
    if (inputs[i].byteSize() != a.tensors[id].type.byteSize())
      throw CudaError("input " + std::to_string(i) + " has the wrong size");
    if (inputs[i].byteSize())
      d.check(d.memcpyHtoD(m.ptr[id], inputs[i].raw(), inputs[i].byteSize()),
              "uploading input '" + a.tensors[id].name + "'");
  }
  // Events around every step when timing; waiting for each also pins a
  // failing kernel to its step.
  std::vector<CUevent> events;
  struct EventGuard {
    const DriverApi& d;
    std::vector<CUevent>& e;
    ~EventGuard() {
      for (CUevent ev : e) d.eventDestroy(ev);
    }
  } guard{d, events};
  if (step_seconds) {
    step_seconds->assign(a.steps.size(), 0.0);
    events.resize(a.steps.size() + 1, nullptr);
    for (CUevent& ev : events) d.check(d.eventCreate(&ev, CU_EVENT_DEFAULT), "cuEventCreate");
    d.check(d.eventRecord(events[0], nullptr), "cuEventRecord");
  }
  std::vector<CUdeviceptr> values;
  std::vector<void*> params;
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const Impl::Launch& l = m.launches[s];
    const ArtifactStep& step = a.steps[s];
    if (!l.empty) {
      values.assign(l.args.size(), 0);
      params.assign(l.args.size(), nullptr);
      for (size_t i = 0; i < l.args.size(); ++i) {
        values[i] = m.ptr[l.args[i]];
        params[i] = &values[i];
      }
      d.check(d.launchKernel(l.fn, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], 0, nullptr,
                             params.data(), nullptr),
              describeStep(step, s) + ": cuLaunchKernel");
    }
    if (step_seconds) {
      d.check(d.eventRecord(events[s + 1], nullptr), "cuEventRecord");
      d.check(d.eventSynchronize(events[s + 1]), describeStep(step, s) + ": running the kernel");
      float ms = 0;
      d.check(d.eventElapsedTime(&ms, events[s], events[s + 1]), "cuEventElapsedTime");
      (*step_seconds)[s] = ms * 1e-3;
    }
    if (on_step) {
      d.check(d.ctxSynchronize(), describeStep(step, s) + ": running the kernel");
      std::vector<Tensor> outs;
      std::vector<Tensor*> out_ptrs;
      outs.reserve(step.outputs.size());
      for (int32_t id : step.outputs) {
        outs.emplace_back(a.tensors[id].type);
        m.download(id, outs.back());
      }
      for (Tensor& t : outs) out_ptrs.push_back(&t);
      on_step(s, step, out_ptrs);
    }
  }
  d.check(d.ctxSynchronize(),
          "running the plan on " + m.name + " (kernels run asynchronously; profiling checks after every step)");
  std::vector<Tensor> results;
  for (int32_t id : a.outputs) {
    results.emplace_back(a.tensors[id].type);
    m.download(id, results.back());
  }
  return results;
}

std::string CudaSession::deviceName() const { return impl_->name; }
std::string CudaSession::deviceArch() const { return impl_->arch; }
size_t CudaSession::deviceBytes() const { return impl_->constant_bytes + impl_->arena_bytes; }
std::string CudaSession::loadedCode() const { return impl_->loaded; }

}  // namespace vdla::rt::cuda
