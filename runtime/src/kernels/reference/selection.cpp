// Comparison and selection: Equal, Not, Where, Expand, broadcasting like numpy.
#include <cstring>
#include <vector>

#include "common.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

// Floats compare as numbers (+0 equals -0, NaN equals nothing); the other
// types compare their bytes, which for integers and bool is the same.
void equal(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  const Tensor& z = a.input(1);
  Tensor& y = a.output(0);
  require(x.dtype() == z.dtype(), "operand types must agree");
  requireDType(y, DType::Bool, "output");
  bool* yp = y.data<bool>();
  const size_t size = dtypeSize(x.dtype());
  const auto* xp = static_cast<const uint8_t*>(x.raw());
  const auto* zp = static_cast<const uint8_t*>(z.raw());
  forEachBroadcast(y.shape(), x.shape(), z.shape(), [&](int64_t i, int64_t ix, int64_t iz) {
    if (x.dtype() == DType::F32)
      yp[i] = x.data<float>()[ix] == z.data<float>()[iz];  // +0 == -0, NaN != NaN
    else
      yp[i] = std::memcmp(xp + size_t(ix) * size, zp + size_t(iz) * size, size) == 0;
  });
}

void logicalNot(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireDType(x, DType::Bool, "input");
  requireDType(y, DType::Bool, "output");
  require(y.numElements() == x.numElements(), "output and input sizes differ");
  for (int64_t i = 0; i < x.numElements(); ++i) y.data<bool>()[i] = !x.data<bool>()[i];
}

void where(const KernelArgs& a) {
  const Tensor& c = a.input(0);
  const Tensor& x = a.input(1);
  const Tensor& z = a.input(2);
  Tensor& y = a.output(0);
  requireDType(c, DType::Bool, "condition");
  require(x.dtype() == z.dtype() && y.dtype() == x.dtype(), "X, Y and the output must have one type");
  const size_t size = dtypeSize(x.dtype());
  const bool* cp = c.data<bool>();
  const auto* xp = static_cast<const uint8_t*>(x.raw());
  const auto* zp = static_cast<const uint8_t*>(z.raw());
  auto* yp = static_cast<uint8_t*>(y.raw());
  // Each operand broadcasts to the output on its own: the condition's and
  // X's offsets first, then Y's.
  const size_t n = size_t(y.numElements());
  std::vector<int64_t> from_c(n), from_x(n);
  forEachBroadcast(y.shape(), c.shape(), x.shape(), [&](int64_t i, int64_t ic, int64_t ix) {
    from_c[size_t(i)] = ic;
    from_x[size_t(i)] = ix;
  });
  forEachBroadcast(y.shape(), z.shape(), z.shape(), [&](int64_t i, int64_t iz, int64_t) {
    const uint8_t* src = cp[from_c[size_t(i)]] ? xp + size_t(from_x[size_t(i)]) * size : zp + size_t(iz) * size;
    std::memcpy(yp + size_t(i) * size, src, size);
  });
}

void expand(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireDType(y, x.dtype(), "output");
  const size_t size = dtypeSize(x.dtype());
  const auto* xp = static_cast<const uint8_t*>(x.raw());
  auto* yp = static_cast<uint8_t*>(y.raw());
  // Broadcasting against a scalar of the output's rank leaves x's index alone.
  const Shape one(y.shape().size(), 1);
  forEachBroadcast(y.shape(), x.shape(), one, [&](int64_t i, int64_t ix, int64_t) {
    std::memcpy(yp + size_t(i) * size, xp + size_t(ix) * size, size);
  });
}

}  // namespace

void registerSelection(KernelRegistry& r) {
  r.add("ref.Equal", equal);
  r.add("ref.Not", logicalNot);
  r.add("ref.Where", where);
  r.add("ref.Expand", expand);
}

}  // namespace vdla::rt::ref
