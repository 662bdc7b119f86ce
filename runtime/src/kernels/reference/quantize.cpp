// Linear quantisation with ONNX's integer semantics, computed in float as
// onnxruntime does:
//   QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point)
//   DequantizeLinear: y = (x - x_zero_point) * x_scale
// per tensor or per axis (`axis`, default 1). The contrib element-wise ops:
//   QLinearAdd: as MLAS's x86-64 AVX2 kernel (what onnxruntime runs there):
//               ra = A_s/C_s, rb = B_s/C_s, fixed = C_zp - (ra*A_zp + rb*B_zp),
//               C = saturate(round_half_even(fma(A, ra, fma(B, rb, fixed))))
//               With attribute unsigned_domain = 1 (the compiler's int8 form of a
//               uint8 model, compiler/quant/qlinear_to_qconv.h) A, B, C and their
//               zero points stand for the uint8 values minus 128, and C is what
//               the kernel computes on those uint8 values, minus 128: the
//               folded formula is not invariant under the shift.
//   QLinearMul: C = saturate(round_half_even((A_s*(A-A_zp) * B_s*(B-B_zp)) / C_s) + C_zp)
#include <cmath>

#include "common.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

// Index along `axis` of each element is (i / inner) % size.
struct AxisMap {
  int64_t inner = 1, size = 1;
  bool per_axis = false;
  int64_t operator()(int64_t i) const { return per_axis ? (i / inner) % size : 0; }
};

AxisMap axisMap(const AttributeMap& attrs, const Tensor& x, const Tensor& scale) {
  require(attrs.getInt("block_size", 0) == 0, "attribute 'block_size' (blocked quantisation) is not supported");
  AxisMap m;
  if (scale.numElements() == 1 && scale.rank() <= 1) return m;
  require(scale.rank() == 1, "a per-axis scale must be 1-D");
  const int64_t axis = normalizeAxis(attrs.getInt("axis", 1), x.rank());
  require(scale.numElements() == x.dim(axis), "the scale has " + std::to_string(scale.numElements()) +
                                                  " values, axis " + std::to_string(axis) + " has " +
                                                  std::to_string(x.dim(axis)));
  m.per_axis = true;
  m.size = x.dim(axis);
  for (int64_t d = axis + 1; d < x.rank(); ++d) m.inner *= x.dim(d);
  return m;
}

void quantizeLinear(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireShape(y, x.shape());
  const Tensor* zp_tensor = a.hasInput(2) ? &a.input(2) : nullptr;
  if (zp_tensor) require(zp_tensor->dtype() == y.dtype(), "y_zero_point's type must be the output's");
  const AxisMap axis = axisMap(a.attributes(), x, a.input(1));
  const std::vector<float> scale = readScales(a.input(1), axis.size, "y_scale");
  const std::vector<int32_t> zp = readZeroPoints(zp_tensor, axis.size, "y_zero_point");
  require(x.dtype() == DType::F32 || x.dtype() == DType::I32, "input x must be f32 or i32");
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    const float v = x.dtype() == DType::F32 ? x.data<float>()[i] : static_cast<float>(x.data<int32_t>()[i]);
    const int64_t c = axis(i);
    storeQuantized(y, i, v / param(scale, c), param(zp, c));
  }
}

void dequantizeLinear(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireDType(y, DType::F32, "output y");
  requireShape(y, x.shape());
  const Tensor* zp_tensor = a.hasInput(2) ? &a.input(2) : nullptr;
  if (zp_tensor) require(zp_tensor->dtype() == x.dtype(), "x_zero_point's type must be the input's");
  const AxisMap axis = axisMap(a.attributes(), x, a.input(1));
  const std::vector<float> scale = readScales(a.input(1), axis.size, "x_scale");
  const std::vector<int32_t> zp = readZeroPoints(zp_tensor, axis.size, "x_zero_point");
  const std::vector<int32_t> q = toInt32(x);
  float* yp = y.data<float>();
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    const int64_t c = axis(i);
    yp[i] = static_cast<float>(q[i] - param(zp, c)) * param(scale, c);
  }
}

template <bool kMul>
void qlinearBinary(const KernelArgs& a) {
  const Tensor& ta = a.input(0);
  const Tensor& tb = a.input(3);
  Tensor& y = a.output(0);
  require(ta.dtype() == DType::U8 || ta.dtype() == DType::I8, "input A must be u8 or i8");
  require(tb.dtype() == ta.dtype() && y.dtype() == ta.dtype(), "A, B and C must have the same type");
  const float sa = readScales(a.input(1), 1, "A_scale")[0];
  const int32_t za = readZeroPoints(a.hasInput(2) ? &a.input(2) : nullptr, 1, "A_zero_point")[0];
  const float sb = readScales(a.input(4), 1, "B_scale")[0];
  const int32_t zb = readZeroPoints(a.hasInput(5) ? &a.input(5) : nullptr, 1, "B_zero_point")[0];
  const float sc = readScales(a.input(6), 1, "C_scale")[0];
  const int32_t zc = readZeroPoints(a.hasInput(7) ? &a.input(7) : nullptr, 1, "C_zero_point")[0];
  const std::vector<int32_t> qa = toInt32(ta), qb = toInt32(tb);
  if (!kMul) {
    // MLAS's x86-64 AVX2 kernel (qladd_avx2.cpp), which onnxruntime runs on
    // such hosts: scale ratios and a fixed part folded from the zero points,
    // two fused multiply-adds on the raw quantised values, then
    // round_half_even and saturation.
    const bool unsigned_domain = a.attributes().getInt("unsigned_domain", 0) != 0;
    require(!unsigned_domain || ta.dtype() == DType::I8, "unsigned_domain needs int8 operands");
    const int32_t shift = unsigned_domain ? 128 : 0;
    const float ratio_a = sa / sc, ratio_b = sb / sc;
    const float fixed = static_cast<float>(zc + shift) -
                        (ratio_a * static_cast<float>(za + shift) + ratio_b * static_cast<float>(zb + shift));
    forEachBroadcast(y.shape(), ta.shape(), tb.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
      float v = std::fma(static_cast<float>(qb[ib] + shift), ratio_b, fixed);
      v = std::fma(static_cast<float>(qa[ia] + shift), ratio_a, v);
      if (unsigned_domain)
        y.data<int8_t>()[i] = static_cast<int8_t>(int32_t{quantizeValue<uint8_t>(v, 0)} - 128);
      else
        storeQuantized(y, i, v, 0);
    });
    return;
  }
  forEachBroadcast(y.shape(), ta.shape(), tb.shape(), [&](int64_t i, int64_t ia, int64_t ib) {
    const float va = sa * static_cast<float>(qa[ia] - za);
    const float vb = sb * static_cast<float>(qb[ib] - zb);
    storeQuantized(y, i, (kMul ? va * vb : va + vb) / sc, zc);
  });
}

}  // namespace

void registerQuantize(KernelRegistry& r) {
  r.add("ref.QuantizeLinear", quantizeLinear);
  r.add("ref.DequantizeLinear", dequantizeLinear);
  r.add("ref.com.microsoft.QLinearAdd", qlinearBinary<false>);
  r.add("ref.com.microsoft.QLinearMul", qlinearBinary<true>);
}

}  // namespace vdla::rt::ref
