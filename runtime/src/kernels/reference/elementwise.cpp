// Element-wise reference kernels with numpy broadcasting.
#include <cmath>

#include "register.h"

namespace vdla::rt::ref {

namespace {

// Index into a broadcast operand for output element `flat`.
int64_t broadcastIndex(int64_t flat, const Shape& out, const Shape& in) {
  int64_t index = 0, stride = 1;
  int64_t offset = static_cast<int64_t>(out.size()) - static_cast<int64_t>(in.size());
  for (int64_t d = static_cast<int64_t>(out.size()) - 1; d >= 0; --d) {
    int64_t coord = flat % out[d];
    flat /= out[d];
    int64_t id = d - offset;
    if (id >= 0) {
      if (in[id] != 1) index += coord * stride;
      stride *= in[id];
    }
  }
  return index;
}

template <typename F>
void unaryF32(const KernelArgs& a, F f) {
  const float* x = a.input(0).data<float>();
  float* y = a.output(0).data<float>();
  for (int64_t i = 0, n = a.output(0).numElements(); i < n; ++i) y[i] = f(x[i]);
}

template <typename F>
void binaryF32(const KernelArgs& a, F f) {
  const Tensor& x = a.input(0);
  const Tensor& z = a.input(1);
  Tensor& y = a.output(0);
  const float* xp = x.data<float>();
  const float* zp = z.data<float>();
  float* yp = y.data<float>();
  for (int64_t i = 0, n = y.numElements(); i < n; ++i)
    yp[i] = f(xp[broadcastIndex(i, y.shape(), x.shape())], zp[broadcastIndex(i, y.shape(), z.shape())]);
}

}  // namespace

void registerElementwise(KernelRegistry& r) {
  r.add("ref.Relu", [](const KernelArgs& a) { unaryF32(a, [](float v) { return v > 0 ? v : 0.0f; }); });
  r.add("ref.Add", [](const KernelArgs& a) { binaryF32(a, [](float p, float q) { return p + q; }); });
  r.add("ref.Mul", [](const KernelArgs& a) { binaryF32(a, [](float p, float q) { return p * q; }); });
}

}  // namespace vdla::rt::ref
