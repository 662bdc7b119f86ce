// Pooling: MaxPool (f32/u8/i8, optional Indices), AveragePool, GlobalAveragePool,
// GlobalMaxPool and com.microsoft.QLinearGlobalAveragePool.
//
// AveragePool divides by the number of window taps inside the input
// (count_include_pad=0) or inside the input and its explicit padding
// (count_include_pad=1); taps past the padding, which ceil_mode can create,
// never count. MaxPool's Indices are row-major offsets into the whole input
// tensor (storage_order 0).
//
// QLinearGlobalAveragePool follows onnxruntime: sum = sum(x) - x_zp * N in int32,
// y = saturate(round_half_even(sum * (x_scale / (y_scale * N))) + y_zp).
#include "common.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

struct PoolShape {
  int64_t planes;  // batch * channels
  Window3 win;
  Shape output;
};

PoolShape resolvePool(const AttributeMap& attrs, const Shape& x) {
  require(x.size() >= 3 && x.size() <= 5, "input must have rank 3 to 5, got " + shapeToString(x));
  PoolShape s;
  s.planes = x[0] * x[1];
  s.win = resolveWindow(attrs, Shape(x.begin() + 2, x.end()), attrs.getInts("kernel_shape"), true);
  s.output = {x[0], x[1]};
  Shape spatial = windowOutputSpatial(s.win, x.size() - 2);
  s.output.insert(s.output.end(), spatial.begin(), spatial.end());
  return s;
}

// Calls f(in_offset) for every tap of the window at output position (od, oh, ow)
// that lies inside the input.
template <typename F>
void forEachTap(const Window3& w, int64_t od, int64_t oh, int64_t ow, F f) {
  for (int64_t kd = 0; kd < w.kernel[0]; ++kd) {
    const int64_t id = od * w.stride[0] - w.pad_begin[0] + kd * w.dilation[0];
    if (id < 0 || id >= w.in[0]) continue;
    for (int64_t kh = 0; kh < w.kernel[1]; ++kh) {
      const int64_t ih = oh * w.stride[1] - w.pad_begin[1] + kh * w.dilation[1];
      if (ih < 0 || ih >= w.in[1]) continue;
      for (int64_t kw = 0; kw < w.kernel[2]; ++kw) {
        const int64_t iw = ow * w.stride[2] - w.pad_begin[2] + kw * w.dilation[2];
        if (iw < 0 || iw >= w.in[2]) continue;
        f((id * w.in[1] + ih) * w.in[2] + iw);
      }
    }
  }
}

// Taps of one dimension's window that fall inside [-pad_begin, in + pad_end).
int64_t tapsInsidePadding(const Window3& w, int dim, int64_t o) {
  int64_t count = 0;
  for (int64_t k = 0; k < w.kernel[dim]; ++k) {
    const int64_t i = o * w.stride[dim] - w.pad_begin[dim] + k * w.dilation[dim];
    if (i >= -w.pad_begin[dim] && i < w.in[dim] + w.pad_end[dim]) ++count;
  }
  return count;
}

template <typename T>
void maxPoolTyped(const KernelArgs& a, const PoolShape& s) {
  const T* x = a.input(0).data<T>();
  T* y = a.output(0).data<T>();
  int64_t* indices = nullptr;
  if (a.outputs.size() > 1 && a.outputs[1]) {
    requireDType(a.output(1), DType::I64, "output Indices");
    requireShape(a.output(1), s.output, "output Indices");
    indices = a.output(1).data<int64_t>();
  }
  const Window3& w = s.win;
  int64_t o = 0;
  for (int64_t p = 0; p < s.planes; ++p) {
    const int64_t base = p * w.inVolume();
    for (int64_t od = 0; od < w.out[0]; ++od)
      for (int64_t oh = 0; oh < w.out[1]; ++oh)
        for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) {
          T best = std::numeric_limits<T>::lowest();
          int64_t best_at = -1;
          forEachTap(w, od, oh, ow, [&](int64_t i) {
            if (best_at < 0 || x[base + i] > best) {
              best = x[base + i];
              best_at = base + i;
            }
          });
          y[o] = best;
          if (indices) indices[o] = best_at < 0 ? 0 : best_at;
        }
  }
}

void maxPool(const KernelArgs& a) {
  const AttributeMap& attrs = a.attributes();
  require(attrs.getInt("storage_order", 0) == 0, "attribute 'storage_order' = 1 is not supported");
  const Tensor& x = a.input(0);
  PoolShape s = resolvePool(attrs, x.shape());
  requireShape(a.output(0), s.output);
  requireDType(a.output(0), x.dtype(), "output Y");
  switch (x.dtype()) {
    case DType::F32: maxPoolTyped<float>(a, s); break;
    case DType::U8: maxPoolTyped<uint8_t>(a, s); break;
    case DType::I8: maxPoolTyped<int8_t>(a, s); break;
    default: throw KernelError(std::string("MaxPool does not support ") + dtypeName(x.dtype()));
  }
}

void averagePool(const KernelArgs& a) {
  const AttributeMap& attrs = a.attributes();
  const Tensor& xt = a.input(0);
  requireDType(xt, DType::F32, "input X");
  PoolShape s = resolvePool(attrs, xt.shape());
  requireShape(a.output(0), s.output);
  const bool include_pad = attrs.getInt("count_include_pad", 0) != 0;
  const float* x = xt.data<float>();
  float* y = a.output(0).data<float>();
  const Window3& w = s.win;
  int64_t o = 0;
  for (int64_t p = 0; p < s.planes; ++p) {
    const int64_t base = p * w.inVolume();
    for (int64_t od = 0; od < w.out[0]; ++od)
      for (int64_t oh = 0; oh < w.out[1]; ++oh)
        for (int64_t ow = 0; ow < w.out[2]; ++ow, ++o) {
          double sum = 0;
          int64_t count = 0;
          forEachTap(w, od, oh, ow, [&](int64_t i) {
            sum += x[base + i];
            ++count;
          });
          if (include_pad)
            count = tapsInsidePadding(w, 0, od) * tapsInsidePadding(w, 1, oh) * tapsInsidePadding(w, 2, ow);
          y[o] = count > 0 ? static_cast<float>(sum / static_cast<double>(count)) : 0.0f;
        }
  }
}

template <bool kMax>
void globalPool(const KernelArgs& a) {
  const Tensor& xt = a.input(0);
  requireDType(xt, DType::F32, "input X");
  require(xt.rank() >= 3, "input must have rank >= 3");
  Shape out = xt.shape();
  for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
  requireShape(a.output(0), out);
  const int64_t planes = xt.dim(0) * xt.dim(1), size = xt.numElements() / std::max<int64_t>(planes, 1);
  const float* x = xt.data<float>();
  float* y = a.output(0).data<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * size;
    if (kMax) {
      float best = -INFINITY;
      for (int64_t i = 0; i < size; ++i) best = std::max(best, xp[i]);
      y[p] = best;
    } else {
      double sum = 0;
      for (int64_t i = 0; i < size; ++i) sum += xp[i];
      y[p] = static_cast<float>(sum / static_cast<double>(size));
    }
  }
}

void qlinearGlobalAveragePool(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  require(x.dtype() == DType::U8 || x.dtype() == DType::I8, "input X must be u8 or i8");
  requireDType(y, x.dtype(), "output Y");
  require(x.rank() >= 3, "input must have rank >= 3");
  const bool channels_last = a.attributes().getInt("channels_last", 0) != 0;
  const int64_t batch = x.dim(0), channels = channels_last ? x.dim(-1) : x.dim(1);
  const int64_t image = x.numElements() / std::max<int64_t>(batch * channels, 1);
  Shape out = x.shape();
  for (int64_t i = channels_last ? 1 : 2, end = channels_last ? x.rank() - 1 : x.rank(); i < end; ++i) out[i] = 1;
  requireShape(y, out);
  const float x_scale = readScales(a.input(1), 1, "x_scale")[0];
  const int32_t x_zp = readZeroPoints(a.hasInput(2) ? &a.input(2) : nullptr, 1, "x_zero_point")[0];
  const float y_scale = readScales(a.input(3), 1, "y_scale")[0];
  const int32_t y_zp = readZeroPoints(a.hasInput(4) ? &a.input(4) : nullptr, 1, "y_zero_point")[0];
  const std::vector<int32_t> q = toInt32(x);
  const float scale = x_scale / (y_scale * static_cast<float>(image));
  for (int64_t n = 0; n < batch; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      int32_t sum = -x_zp * static_cast<int32_t>(image);
      for (int64_t i = 0; i < image; ++i)
        sum += q[channels_last ? (n * image + i) * channels + c : (n * channels + c) * image + i];
      storeQuantized(y, n * channels + c, static_cast<float>(sum) * scale, y_zp);
    }
}

}  // namespace

void registerPool(KernelRegistry& r) {
  r.add("ref.MaxPool", maxPool);
  r.add("ref.AveragePool", averagePool);
  r.add("ref.GlobalAveragePool", globalPool<false>);
  r.add("ref.GlobalMaxPool", globalPool<true>);
  r.add("ref.com.microsoft.QLinearGlobalAveragePool", qlinearGlobalAveragePool);
}

}  // namespace vdla::rt::ref
