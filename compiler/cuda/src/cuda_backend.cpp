// lowerForCuda: generate, compile with NVRTC (PTX and the cubins in parallel)
// and rewrite the plan's steps into launches.
#include <algorithm>
#include <future>

#include "vdla/compiler/cuda/cuda_backend.h"

namespace vdla::cuda {

namespace {

// 90 for "sm_90"; throws for anything else.
int archNumber(const std::string& arch) {
  const bool ok = arch.size() > 3 && arch.rfind("sm_", 0) == 0 &&
                  std::all_of(arch.begin() + 3, arch.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!ok) throw CudaBackendError("target cuda: architecture '" + arch + "' is not of the form sm_XY (e.g. sm_90)");
  return std::stoi(arch.substr(3));
}

}  // namespace

rt::Artifact lowerForCuda(const rt::Artifact& plan, const CudaCodegenOptions& options) {
  if (options.archs.empty()) throw CudaBackendError("target cuda: no GPU architecture given");
  int oldest = 1 << 30;
  for (const std::string& a : options.archs) oldest = std::min(oldest, archNumber(a));
  if (options.tf32_tensor_cores && oldest < 80)
    throw CudaBackendError("target cuda: TF32 tensor cores need sm_80 or later, but sm_" + std::to_string(oldest) +
                           " was asked for");
  GeneratedModule gen = generateCudaModule(plan, options);

  const std::string virtual_arch = "compute_" + std::to_string(oldest);
  auto ptx = std::async(std::launch::async, [&] { return compileWithNvrtc(gen.source, virtual_arch); });
  std::vector<std::pair<std::string, NvrtcOutput>> cubins;
  for (const std::string& a : options.archs) cubins.emplace_back(a, compileWithNvrtc(gen.source, a));

  rt::Artifact out = std::move(gen.plan);
  out.target = "cuda";
  for (size_t i = 0; i < out.steps.size(); ++i) {
    rt::ArtifactStep& s = out.steps[i];
    const KernelLaunch& l = gen.launches[i];
    s.attrs.set("cuda.op", s.kernel.rfind("ref.", 0) == 0 ? s.kernel.substr(4) : s.kernel);
    s.kernel = "cuda.launch";
    s.attrs.set("cuda.entry", l.entry);
    s.attrs.set("cuda.grid", std::vector<int64_t>{l.grid[0], l.grid[1], l.grid[2]});
    s.attrs.set("cuda.block", std::vector<int64_t>{l.block[0], l.block[1], l.block[2]});
  }
  out.blobs["cuda.source"] = std::vector<uint8_t>(gen.source.begin(), gen.source.end());
  const std::string ptx_text = ptx.get().ptx;
  out.blobs["cuda.ptx"] = std::vector<uint8_t>(ptx_text.begin(), ptx_text.end());
  std::string archs;
  for (auto& [arch, o] : cubins) {
    out.blobs["cuda.cubin." + arch] = std::move(o.cubin);
    archs += (archs.empty() ? "" : ",") + arch;
  }
  out.metadata["cuda.archs"] = archs;
  out.metadata["cuda.ptx_arch"] = virtual_arch;
  out.metadata["cuda.tf32_tensor_cores"] = options.tf32_tensor_cores ? "1" : "0";
  out.metadata["cuda.kernels"] = std::to_string(gen.entries.size());
  out.metadata["cuda.nvrtc"] = nvrtcVersion();
  out.validate("CUDA lowering of '" + out.model_name + "'");
  return out;
}

}  // namespace vdla::cuda
