#include <algorithm>

#include "window.h"

namespace vdla::cuda {

Window2 resolveWindow2(const StepContext& ctx, const rt::Shape& x, const rt::Shape& y,
                       const std::vector<int64_t>& kernel) {
  ctx.require(x.size() == 3 || x.size() == 4,
              "only 1-D and 2-D windows are supported, input is " + rt::shapeToString(x));
  ctx.require(y.size() == x.size(), "output rank differs from the input's");
  const size_t s = x.size() - 2;
  ctx.require(kernel.size() == s, "kernel rank does not match the input's spatial rank");
  const rt::AttributeMap& a = ctx.attrs();
  const std::vector<int64_t> strides = a.getInts("strides", std::vector<int64_t>(s, 1));
  const std::vector<int64_t> dilations = a.getInts("dilations", std::vector<int64_t>(s, 1));
  std::vector<int64_t> pads = a.getInts("pads", std::vector<int64_t>(2 * s, 0));
  ctx.require(strides.size() == s && dilations.size() == s && pads.size() == 2 * s,
              "strides, dilations or pads do not match the spatial rank");
  const std::string auto_pad = a.getString("auto_pad", "NOTSET");
  Window2 w{};
  // 1-D windows become 2-D with a unit height in front.
  const size_t off = 2 - s;
  for (size_t d = 0; d < 2; ++d) {
    w.in[d] = w.out[d] = w.kernel[d] = w.stride[d] = w.dilation[d] = 1;
    w.pad_begin[d] = w.pad_end[d] = 0;
  }
  for (size_t d = 0; d < s; ++d) {
    const size_t t = d + off;
    w.in[t] = x[2 + d];
    w.out[t] = y[2 + d];
    w.kernel[t] = kernel[d];
    w.stride[t] = strides[d];
    w.dilation[t] = dilations[d];
    ctx.require(w.stride[t] >= 1 && w.dilation[t] >= 1 && w.kernel[t] >= 1, "strides, dilations and kernel must be >= 1");
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t total =
          std::max<int64_t>(0, (w.out[t] - 1) * w.stride[t] + (w.kernel[t] - 1) * w.dilation[t] + 1 - w.in[t]);
      w.pad_begin[t] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[t] = total - w.pad_begin[t];
    } else if (auto_pad == "VALID") {
      w.pad_begin[t] = w.pad_end[t] = 0;
    } else {
      ctx.require(auto_pad == "NOTSET", "attribute 'auto_pad' has unsupported value \"" + auto_pad + "\"");
      w.pad_begin[t] = pads[d];
      w.pad_end[t] = pads[d + s];
    }
    ctx.require(w.pad_begin[t] >= 0 && w.pad_end[t] >= 0, "negative pads are not supported");
  }
  return w;
}

}  // namespace vdla::cuda
