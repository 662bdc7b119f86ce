#include <algorithm>

#include "window.h"

namespace vdla::cuda {

Window3 resolveWindow3(const StepContext& ctx, const rt::Shape& x, const rt::Shape& y,
                       const std::vector<int64_t>& kernel) {
  ctx.require(x.size() >= 3 && x.size() <= 5,
              "windows have 1 to 3 spatial dimensions, input is " + rt::shapeToString(x));
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
  Window3 w{};
  // Fewer spatial dimensions become unit ones in front.
  const size_t off = 3 - s;
  for (size_t d = 0; d < 3; ++d) {
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
    ctx.require(w.stride[t] >= 1 && w.dilation[t] >= 1 && w.kernel[t] >= 1,
                "strides, dilations and kernel must be >= 1");
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

std::string windowParams(const Window3& w, bool end_pads) {
  std::string p;
  const char* axes[3] = {"D", "H", "W"};
  for (int d = 0; d < 3; ++d) {
    const std::string a = axes[d];
    p += constant(a, w.in[d]) + constant("O" + a, w.out[d]) + constant("K" + a, w.kernel[d]) +
         constant("S" + a, w.stride[d]) + constant("P" + a, w.pad_begin[d]) + constant("D" + a, w.dilation[d]);
    if (end_pads) p += constant("P" + a + "E", w.pad_end[d]);
  }
  return p;
}

}  // namespace vdla::cuda
