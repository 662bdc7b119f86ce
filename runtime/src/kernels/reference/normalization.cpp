// BatchNormalization (inference), Softmax and LogSoftmax. For the two forms of
// Softmax (legacy_2d=1 for opset < 13, single axis otherwise) see
// compiler/src/ops/normalization_ops.cpp.
#include "common.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

// Y = (X - mean) / sqrt(var + epsilon) * scale + B, per channel (dimension 1).
void batchNorm(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  requireDType(x, DType::F32, "input X");
  require(x.rank() >= 2, "input X must have rank >= 2");
  requireShape(a.output(0), x.shape());
  const int64_t n = x.dim(0), c = x.dim(1), size = n * c == 0 ? 0 : x.numElements() / (n * c);
  const char* names[] = {"scale", "B", "input_mean", "input_var"};
  const float* p[4];
  for (size_t i = 0; i < 4; ++i) {
    requireDType(a.input(i + 1), DType::F32, names[i]);
    require(a.input(i + 1).numElements() == c, std::string(names[i]) + " must have one value per channel");
    p[i] = a.input(i + 1).data<float>();
  }
  const float epsilon = static_cast<float>(a.attributes().getFloat("epsilon", 1e-5));
  const float* xp = x.data<float>();
  float* yp = a.output(0).data<float>();
  for (int64_t ch = 0; ch < c; ++ch) {
    // In float, as the ONNX reference implementation computes it.
    const float inv_std = 1.0f / std::sqrt(p[3][ch] + epsilon);
    for (int64_t b = 0; b < n; ++b) {
      const int64_t base = (b * c + ch) * size;
      for (int64_t i = 0; i < size; ++i) yp[base + i] = (xp[base + i] - p[2][ch]) * inv_std * p[0][ch] + p[1][ch];
    }
  }
}

// Normalises `count` elements spaced `stride` apart starting at x.
template <bool kLog>
void softmaxLine(const float* x, float* y, int64_t count, int64_t stride) {
  float max = -INFINITY;
  for (int64_t i = 0; i < count; ++i) max = std::max(max, x[i * stride]);
  double sum = 0;
  for (int64_t i = 0; i < count; ++i) sum += std::exp(static_cast<double>(x[i * stride] - max));
  for (int64_t i = 0; i < count; ++i) {
    const double shifted = static_cast<double>(x[i * stride] - max);
    y[i * stride] = static_cast<float>(kLog ? shifted - std::log(sum) : std::exp(shifted) / sum);
  }
}

template <bool kLog>
void softmax(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  requireDType(x, DType::F32, "input");
  requireShape(a.output(0), x.shape());
  const int64_t rank = x.rank();
  const bool legacy = a.attributes().getInt("legacy_2d", 0) != 0;
  int64_t axis = a.attributes().getInt("axis", legacy ? 1 : -1);
  int64_t outer = 1, count = 1, inner = 1;
  if (legacy) {
    // [prod(shape[:axis]), prod(shape[axis:])], normalised over each row.
    require(axis >= -rank && axis <= rank, "attribute 'axis' is out of range");
    if (axis < 0) axis += rank;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : count) *= x.dim(d);
  } else {
    axis = normalizeAxis(axis, rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis) outer *= x.dim(d);
      else if (d == axis) count = x.dim(d);
      else inner *= x.dim(d);
    }
  }
  const float* xp = x.data<float>();
  float* yp = a.output(0).data<float>();
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      softmaxLine<kLog>(xp + o * count * inner + i, yp + o * count * inner + i, count, inner);
}

}  // namespace

void registerNormalization(KernelRegistry& r) {
  r.add("ref.BatchNormalization", batchNorm);
  r.add("ref.Softmax", softmax<false>);
  r.add("ref.LogSoftmax", softmax<true>);
}

}  // namespace vdla::rt::ref
