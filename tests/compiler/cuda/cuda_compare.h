// Comparing the CUDA backend's results with a reference (the GPU tests and
// the emulated-driver tests share it).
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/tensor.h"

namespace vdla::cuda::testing {

// Largest |got - want| relative to the largest |want| of the tensor: the
// error measured against the tensor's scale (elementwise relative error is
// meaningless for values that cancel to near zero). Non-float tensors: 0 when
// equal bit for bit, else 1. NaN where the reference has none: infinity.
double scaledError(const rt::Tensor& got, const rt::Tensor& want);

// EXPECTs every output within `tol` (scaledError) of the reference.
void expectClose(const std::vector<rt::Tensor>& got, const std::vector<rt::Tensor>& want, double tol,
                 const std::string& what);

// Compiles for target cuda (and readies the artifact for the test target).
rt::Artifact compileCuda(ir::Graph& g, bool optimize, bool tf32 = false);

}  // namespace vdla::cuda::testing
