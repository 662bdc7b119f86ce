// The CUDA session of a runtime built without the CUDA backend: every entry
// point explains that, so a "cuda" artifact fails with a clear message.
#include "vdla/runtime/cuda/cuda_session.h"

namespace vdla::rt::cuda {

namespace {
const char* const kWhy = "this runtime was built without CUDA support (VDLA_WITH_CUDA found no CUDA toolkit)";
}

struct CudaSession::Impl {};

bool runtimeHasCuda() { return false; }
std::string deviceProblem(int) { return kWhy; }
CudaSession::CudaSession(const Artifact&, int) { throw CudaError(kWhy); }
CudaSession::~CudaSession() = default;
std::vector<Tensor> CudaSession::run(const std::vector<Tensor>&, std::vector<double>*, const StepCallback&) {
  throw CudaError(kWhy);
}
std::string CudaSession::deviceName() const { return ""; }
std::string CudaSession::deviceArch() const { return ""; }
size_t CudaSession::deviceBytes() const { return 0; }
std::string CudaSession::loadedCode() const { return ""; }

}  // namespace vdla::rt::cuda
