// Options of the CUDA target, part of the compile driver's interface even in
// builds without the CUDA backend (where target "cuda" is unavailable).
#pragma once

#include <string>
#include <vector>

namespace vdla {

struct CudaCodegenOptions {
  // Real architectures to build cubins for. PTX is always added for the
  // virtual architecture of the oldest of them (compute_XY), so a newer GPU
  // can JIT it when no cubin matches.
  std::vector<std::string> archs = {"sm_90"};
  // Convolutions on tensor cores with TF32 inputs (sm_80 and later). Off by
  // default: TF32 rounding is of the order of the fp32 tolerance (1e-3).
  bool tf32_tensor_cores = false;
  // The implicit-GEMM kernel of every dense or grouped convolution, one of
  // cuda::convKernelNames(); empty chooses per layer by its shape.
  std::string conv_kernel;
  // Fuse a convolution into the residual Add that is its only reader.
  bool fuse_residual = true;
};

}  // namespace vdla
