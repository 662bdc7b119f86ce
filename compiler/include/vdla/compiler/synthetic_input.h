// The seeded input that measurements run when no image is given (vdla
// profile, the explorer's device confirmation): uniform in [-1, 1), the same
// every time, so that figures taken by different commands agree.
#pragma once

#include "vdla/runtime/tensor.h"

namespace vdla {

// An f32 tensor of `type` (other element types are refused with an error).
rt::Tensor seededUniformInput(const rt::TensorType& type);

}  // namespace vdla
