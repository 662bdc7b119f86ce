// Helpers shared by the reference kernel families: checking arguments, numpy
// broadcasting, fused activations, sliding-window geometry and the integer
// semantics of ONNX quantisation (round half to even, saturate).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "vdla/runtime/kernel_registry.h"

namespace vdla::rt::ref {

// Throws KernelError(message) unless cond.
inline void require(bool cond, const std::string& message) {
  if (!cond) throw KernelError(message);
}
void requireDType(const Tensor& t, DType want, const char* what);
// Checks that the caller allocated `out` with the shape the kernel computed.
void requireShape(const Tensor& out, const Shape& expected, const char* what = "output");
int64_t normalizeAxis(int64_t axis, int64_t rank);

// Every element of an integer tensor (any integer element type).
std::vector<int64_t> readInts(const Tensor& t);

// Strides of `in` seen through numpy broadcasting to `out` (0 where `in` is
// broadcast), aligned to out's rank.
std::vector<int64_t> broadcastStrides(const Shape& out, const Shape& in);

// Calls f(out_index, a_index, b_index) for every output element of a numpy
// broadcast of a and b to out.
template <typename F>
void forEachBroadcast(const Shape& out, const Shape& a, const Shape& b, F f) {
  const int64_t n = numElements(out);
  if (a == out && b == out) {
    for (int64_t i = 0; i < n; ++i) f(i, i, i);
    return;
  }
  const size_t rank = out.size();
  const std::vector<int64_t> sa = broadcastStrides(out, a), sb = broadcastStrides(out, b);
  std::vector<int64_t> coord(rank, 0);
  int64_t ia = 0, ib = 0;
  for (int64_t i = 0; i < n; ++i) {
    f(i, ia, ib);
    // Odometer step over the output coordinates, keeping the operand offsets.
    for (size_t d = rank; d-- > 0;) {
      ia += sa[d];
      ib += sb[d];
      if (++coord[d] < out[d]) break;
      ia -= sa[d] * out[d];
      ib -= sb[d] * out[d];
      coord[d] = 0;
    }
  }
}

// The fused activation a pass may attach to Conv, Gemm, MatMul and Add.
struct Activation {
  enum Kind { None, Relu, Clip } kind = None;
  float lo = -INFINITY, hi = INFINITY;
  void apply(float* data, int64_t n) const;
};
Activation readActivation(const AttributeMap& attrs);

// Sliding-window geometry (Conv, pooling) of up to three spatial dimensions,
// padded to exactly three (depth, height, width) with unit dimensions in front
// so that 1-D and 2-D windows run through the same loops.
struct Window3 {
  int64_t in[3], kernel[3], out[3], stride[3], dilation[3], pad_begin[3], pad_end[3];
  int64_t inVolume() const { return in[0] * in[1] * in[2]; }
  int64_t outVolume() const { return out[0] * out[1] * out[2]; }
  int64_t kernelVolume() const { return kernel[0] * kernel[1] * kernel[2]; }
};
// From the ONNX attributes strides, dilations, pads, auto_pad and (pooling)
// ceil_mode, for the given input spatial shape and kernel.
Window3 resolveWindow(const AttributeMap& attrs, const Shape& input_spatial, const std::vector<int64_t>& kernel,
                      bool is_pooling);
// The output spatial shape of a window in the original spatial rank.
Shape windowOutputSpatial(const Window3& w, size_t spatial_rank);

// Quantisation. Values are rounded half to even (the default rounding mode of
// std::nearbyint) and saturated to the range of T.
template <typename T>
T saturate(float v) {
  constexpr float lo = static_cast<float>(std::numeric_limits<T>::lowest());
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
  if (!(v >= lo)) return std::numeric_limits<T>::lowest();  // also NaN, as onnxruntime's clamp does
  if (v >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}
// round_half_even(v) + zero_point, saturated.
template <typename T>
T quantizeValue(float v, int32_t zero_point) {
  return saturate<T>(std::nearbyint(v) + static_cast<float>(zero_point));
}
// One float per element of a scale tensor (f32); checks the count is 1 or n.
std::vector<float> readScales(const Tensor& t, int64_t n, const char* what);
// Zero points as int32 (0 when the optional tensor is missing); count 1 or n.
std::vector<int32_t> readZeroPoints(const Tensor* t, int64_t n, const char* what);
// Element i of a per-tensor (size 1) or per-axis parameter vector.
template <typename T>
T param(const std::vector<T>& v, int64_t i) {
  return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
}
// Whole tensor as int32 (u8, i8 or i32 elements).
std::vector<int32_t> toInt32(const Tensor& t);
// Writes requantised int32 values to an u8 or i8 output: y = sat(round(acc * scale) + zp).
void storeQuantized(Tensor& out, int64_t index, float value, int32_t zero_point);

}  // namespace vdla::rt::ref
