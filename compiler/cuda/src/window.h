// Sliding-window geometry of Conv and pooling steps, recovered from the ONNX
// attributes and the tensor shapes the compiler inferred. Every window is
// seen as 3-D (depth, height, width): 1-D and 2-D windows get unit leading
// dimensions, which the kernels' constant folding then removes.
#pragma once

#include "kernel_spec.h"

namespace vdla::cuda {

struct Window3 {
  int64_t in[3], out[3], kernel[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
  int64_t inVolume() const { return in[0] * in[1] * in[2]; }
  int64_t outVolume() const { return out[0] * out[1] * out[2]; }
};

// `x` is [N, C, spatial...] with 1 to 3 spatial dimensions, `y` the output,
// `kernel` the window's spatial size.
Window3 resolveWindow3(const StepContext& ctx, const rt::Shape& x, const rt::Shape& y,
                       const std::vector<int64_t>& kernel);

// The members D, H, W, OD, OH, OW, KD, KH, KW, SD, SH, SW, PD, PH, PW (begin
// pads), DD, DH, DW of a kernel's parameter struct; with `end_pads` also PDE,
// PHE, PWE.
std::string windowParams(const Window3& w, bool end_pads = false);

}  // namespace vdla::cuda
