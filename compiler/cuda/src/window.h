// Sliding-window geometry of Conv and pooling steps, recovered from the ONNX
// attributes and the tensor shapes the compiler inferred. Rank-3 tensors (one
// spatial dimension) are seen as 2-D with height 1.
#pragma once

#include "kernel_spec.h"

namespace vdla::cuda {

struct Window2 {
  int64_t in[2], out[2], kernel[2], stride[2], dilation[2], pad_begin[2], pad_end[2];
};

// `x` is [N, C, spatial...], `y` the output, `kernel` the window's spatial size.
Window2 resolveWindow2(const StepContext& ctx, const rt::Shape& x, const rt::Shape& y,
                       const std::vector<int64_t>& kernel);

}  // namespace vdla::cuda
