// Plan-level fusion for the CUDA backend: a Conv whose output is read only by
// one Add (same shape on both operands, f32) becomes one step that computes
// the convolution, its activation, the addition and the Add's activation in
// the convolution's epilogue, so the intermediate never reaches memory.
#pragma once

#include "vdla/runtime/artifact.h"

namespace vdla::cuda {

// The fused step takes the Add's place in the plan (its other operand may be
// computed after the Conv, as in ResNet's downsampling branch) and has inputs
// X, W, B (-1 when absent), residual; attributes "cuda.residual" = 1 and
// "cuda.residual_activation" (the Add's). Returns the number of fusions.
size_t fuseResidualAdds(rt::Artifact& plan);

}  // namespace vdla::cuda
