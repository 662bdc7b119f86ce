// Convolutions: Conv (fp32, fused activation), ConvInteger and QLinearConv.
// Each (batch, group) is an im2col followed by one matrix product with the
// weights, which ONNX already lays out as [M][C/group * kernel volume]. The
// integer forms subtract zero points first and accumulate exactly in int32;
// QLinearConv then requantises as onnxruntime does: the int32 sum times the
// float (x_scale * w_scale / y_scale), rounded half to even, plus y_zero_point,
// saturated.
#include <cstring>

#include "common.h"
#include "gemm.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

struct ConvShape {
  int64_t batch, channels, out_channels, group;
  Window3 win;
  Shape output;
  int64_t channelsPerGroup() const { return channels / group; }
  int64_t outChannelsPerGroup() const { return out_channels / group; }
};

ConvShape resolveConv(const AttributeMap& attrs, const Shape& x, const Shape& w) {
  require(x.size() >= 3 && x.size() <= 5, "input must have rank 3 to 5, got " + shapeToString(x));
  require(w.size() == x.size(), "weights " + shapeToString(w) + " must have the input's rank");
  ConvShape s;
  s.batch = x[0];
  s.channels = x[1];
  s.out_channels = w[0];
  s.group = attrs.getInt("group", 1);
  require(s.group >= 1 && s.channels == w[1] * s.group && s.out_channels % s.group == 0,
          "channels of input " + shapeToString(x) + " and weights " + shapeToString(w) + " do not fit group " +
              std::to_string(s.group));
  std::vector<int64_t> kernel(w.begin() + 2, w.end());
  s.win = resolveWindow(attrs, Shape(x.begin() + 2, x.end()), kernel, false);
  s.output = {s.batch, s.out_channels};
  Shape spatial = windowOutputSpatial(s.win, x.size() - 2);
  s.output.insert(s.output.end(), spatial.begin(), spatial.end());
  return s;
}

// Unfolds one group of input channels x[c][d][h][w] into col[c * kvol + k][p]:
// row (channel, kernel offset), column output position; padding reads as 0.
template <typename T>
void im2col(const T* x, int64_t channels, const Window3& w, T* col) {
  const int64_t out_vol = w.outVolume();
  T* dst = col;
  for (int64_t c = 0; c < channels; ++c) {
    const T* xc = x + c * w.inVolume();
    for (int64_t kd = 0; kd < w.kernel[0]; ++kd)
      for (int64_t kh = 0; kh < w.kernel[1]; ++kh)
        for (int64_t kw = 0; kw < w.kernel[2]; ++kw) {
          for (int64_t od = 0; od < w.out[0]; ++od) {
            const int64_t id = od * w.stride[0] - w.pad_begin[0] + kd * w.dilation[0];
            for (int64_t oh = 0; oh < w.out[1]; ++oh) {
              const int64_t ih = oh * w.stride[1] - w.pad_begin[1] + kh * w.dilation[1];
              T* row = dst + (od * w.out[1] + oh) * w.out[2];
              if (id < 0 || id >= w.in[0] || ih < 0 || ih >= w.in[1]) {
                std::fill(row, row + w.out[2], T(0));
                continue;
              }
              const T* src = xc + (id * w.in[1] + ih) * w.in[2];
              for (int64_t ow = 0; ow < w.out[2]; ++ow) {
                const int64_t iw = ow * w.stride[2] - w.pad_begin[2] + kw * w.dilation[2];
                row[ow] = (iw >= 0 && iw < w.in[2]) ? src[iw] : T(0);
              }
            }
          }
          dst += out_vol;
        }
  }
}

bool isPointwise(const Window3& w) {
  for (int i = 0; i < 3; ++i)
    if (w.kernel[i] != 1 || w.stride[i] != 1 || w.pad_begin[i] != 0 || w.pad_end[i] != 0) return false;
  return true;
}

// y[n][m][p] = sum over the group's channels and kernel of w * x, added to
// whatever y holds (the bias). T is float or int32.
template <typename T>
void convolve(const ConvShape& s, const T* x, const T* w, T* y) {
  const int64_t cg = s.channelsPerGroup(), mg = s.outChannelsPerGroup();
  const int64_t kdim = cg * s.win.kernelVolume(), out_vol = s.win.outVolume(), in_vol = s.win.inVolume();
  const bool pointwise = isPointwise(s.win);  // 1x1, stride 1, no padding: the input is its own im2col
  std::vector<T> col(pointwise ? 0 : static_cast<size_t>(kdim * out_vol));
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t g = 0; g < s.group; ++g) {
      const T* xg = x + (n * s.channels + g * cg) * in_vol;
      const T* b = xg;
      if (!pointwise) {
        im2col(xg, cg, s.win, col.data());
        b = col.data();
      }
      gemmAccumulate<T>(mg, out_vol, kdim, w + g * mg * kdim, kdim, b, out_vol,
                        y + (n * s.out_channels + g * mg) * out_vol, out_vol);
    }
}

void convF32(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& w = a.input(1);
  Tensor& y = a.output(0);
  requireDType(x, DType::F32, "input X");
  requireDType(w, DType::F32, "weights W");
  ConvShape s = resolveConv(a.attributes(), x.shape(), w.shape());
  requireShape(y, s.output);
  const int64_t out_vol = s.win.outVolume();
  float* yp = y.data<float>();
  if (a.hasInput(2)) {
    const Tensor& b = a.input(2);
    requireDType(b, DType::F32, "bias B");
    require(b.numElements() == s.out_channels, "bias B must have one value per output channel");
    for (int64_t n = 0; n < s.batch; ++n)
      for (int64_t m = 0; m < s.out_channels; ++m)
        std::fill_n(yp + (n * s.out_channels + m) * out_vol, out_vol, b.data<float>()[m]);
  } else {
    std::fill_n(yp, y.numElements(), 0.0f);
  }
  convolve<float>(s, x.data<float>(), w.data<float>(), yp);
  readActivation(a.attributes()).apply(yp, y.numElements());
}

// (q - zero_point) as int32, the zero point per tensor or per leading index
// (output channel of the weights).
std::vector<int32_t> centered(const Tensor& q, const std::vector<int32_t>& zp, int64_t per) {
  std::vector<int32_t> v = toInt32(q);
  const int64_t block = zp.size() == 1 ? static_cast<int64_t>(v.size()) : static_cast<int64_t>(v.size()) / per;
  for (size_t i = 0; i < v.size(); ++i) v[i] -= zp.size() == 1 ? zp[0] : zp[i / block];
  return v;
}

// int32 convolution of (x - x_zp) and (w - w_zp), as ConvInteger and QLinearConv share it.
std::vector<int32_t> integerConv(const KernelArgs& a, const Tensor& x, const Tensor* x_zp, const Tensor& w,
                                 const Tensor* w_zp, ConvShape* shape) {
  require(x.dtype() == DType::U8 || x.dtype() == DType::I8, "input x must be u8 or i8");
  require(w.dtype() == DType::U8 || w.dtype() == DType::I8, "weights w must be u8 or i8");
  ConvShape s = resolveConv(a.attributes(), x.shape(), w.shape());
  const std::vector<int32_t> xz = readZeroPoints(x_zp, 1, "x_zero_point");
  const std::vector<int32_t> wz = readZeroPoints(w_zp, s.out_channels, "w_zero_point");
  const std::vector<int32_t> xc = centered(x, xz, 1);
  const std::vector<int32_t> wc = centered(w, wz, s.out_channels);
  std::vector<int32_t> acc(static_cast<size_t>(numElements(s.output)), 0);
  convolve<int32_t>(s, xc.data(), wc.data(), acc.data());
  *shape = s;
  return acc;
}

void convInteger(const KernelArgs& a) {
  Tensor& y = a.output(0);
  requireDType(y, DType::I32, "output y");
  ConvShape s;
  std::vector<int32_t> acc = integerConv(a, a.input(0), a.hasInput(2) ? &a.input(2) : nullptr, a.input(1),
                                         a.hasInput(3) ? &a.input(3) : nullptr, &s);
  requireShape(y, s.output);
  std::copy(acc.begin(), acc.end(), y.data<int32_t>());
}

void qlinearConv(const KernelArgs& a) {
  Tensor& y = a.output(0);
  ConvShape s;
  std::vector<int32_t> acc = integerConv(a, a.input(0), a.hasInput(2) ? &a.input(2) : nullptr, a.input(3),
                                         a.hasInput(5) ? &a.input(5) : nullptr, &s);
  requireShape(y, s.output);
  const float x_scale = readScales(a.input(1), 1, "x_scale")[0];
  const std::vector<float> w_scale = readScales(a.input(4), s.out_channels, "w_scale");
  const float y_scale = readScales(a.input(6), 1, "y_scale")[0];
  const int32_t y_zp = readZeroPoints(a.hasInput(7) ? &a.input(7) : nullptr, 1, "y_zero_point")[0];
  if (a.hasInput(7)) require(a.input(7).dtype() == y.dtype(), "y_zero_point's type must be the output's");
  std::vector<int32_t> bias(static_cast<size_t>(s.out_channels), 0);
  if (a.hasInput(8)) {
    requireDType(a.input(8), DType::I32, "bias B");
    require(a.input(8).numElements() == s.out_channels, "bias B must have one value per output channel");
    bias = a.input(8).toVector<int32_t>();
  }
  const int64_t out_vol = s.win.outVolume();
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t m = 0; m < s.out_channels; ++m) {
      const float scale = x_scale * param(w_scale, m) / y_scale;
      const int64_t base = (n * s.out_channels + m) * out_vol;
      for (int64_t p = 0; p < out_vol; ++p)
        storeQuantized(y, base + p, static_cast<float>(acc[base + p] + bias[m]) * scale, y_zp);
    }
}

}  // namespace

void registerConv(KernelRegistry& r) {
  r.add("ref.Conv", convF32);
  r.add("ref.ConvInteger", convInteger);
  r.add("ref.QLinearConv", qlinearConv);
}

}  // namespace vdla::rt::ref
