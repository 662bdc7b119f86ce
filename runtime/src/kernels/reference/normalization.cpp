// BatchNormalization (inference), LayerNormalization, Softmax and LogSoftmax. For the two forms of
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

// The offset of each normalised position into an operand that broadcasts to
// the normalised dimensions `dims` (numpy rules: aligned at the end, size 1
// repeats).
std::vector<int64_t> broadcastOffsets(const Shape& operand, const Shape& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<int64_t> offsets(size_t(count), 0);
  std::vector<int64_t> stride(dims.size(), 0);
  int64_t s = 1;
  for (size_t k = 0; k < operand.size(); ++k) {
    const size_t od = operand.size() - 1 - k, dd = dims.size() - 1 - k;
    stride[dd] = operand[od] == 1 ? 0 : s;
    s *= operand[od];
  }
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, off = 0;
    for (size_t d = dims.size(); d-- > 0;) {
      off += (rest % dims[d]) * stride[d];
      rest /= dims[d];
    }
    offsets[size_t(i)] = off;
  }
  return offsets;
}

// Y = (X - mean) / sqrt(var + epsilon) * Scale + B over the dimensions from
// `axis` on; mean and variance (biased) accumulated in double, the
// normalisation in float like the ONNX reference with stash_type 1.
void layerNorm(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  requireDType(x, DType::F32, "input X");
  requireShape(a.output(0), x.shape());
  const int64_t rank = x.rank();
  const int64_t axis = normalizeAxis(a.attributes().getInt("axis", -1), rank);
  const Shape dims(x.shape().begin() + axis, x.shape().end());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= x.dim(d);
  const float epsilon = static_cast<float>(a.attributes().getFloat("epsilon", 1e-5));
  const Tensor& scale = a.input(1);
  requireDType(scale, DType::F32, "Scale");
  const bool has_bias = a.hasInput(2);
  const std::vector<int64_t> scale_at = broadcastOffsets(scale.shape(), dims);
  std::vector<int64_t> bias_at;
  if (has_bias) {
    requireDType(a.input(2), DType::F32, "B");
    bias_at = broadcastOffsets(a.input(2).shape(), dims);
  }
  const float* sp = scale.data<float>();
  const float* bp = has_bias ? a.input(2).data<float>() : nullptr;
  const float* xp = x.data<float>();
  float* yp = a.output(0).data<float>();
  for (int64_t o = 0; o < outer; ++o) {
    const float* row = xp + o * inner;
    float* out = yp + o * inner;
    double sum = 0;
    for (int64_t i = 0; i < inner; ++i) sum += row[i];
    const double mean = inner ? sum / double(inner) : 0;
    double sq = 0;
    for (int64_t i = 0; i < inner; ++i) sq += (row[i] - mean) * (row[i] - mean);
    const float inv_std = 1.0f / std::sqrt(static_cast<float>(inner ? sq / double(inner) : 0) + epsilon);
    const float m = static_cast<float>(mean);
    for (int64_t i = 0; i < inner; ++i) {
      const float v = (row[i] - m) * inv_std * sp[scale_at[size_t(i)]];
      out[i] = bp ? v + bp[bias_at[size_t(i)]] : v;
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
      if (d < axis)
        outer *= x.dim(d);
      else if (d == axis)
        count = x.dim(d);
      else
        inner *= x.dim(d);
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
  r.add("ref.LayerNormalization", layerNorm);
  r.add("ref.Softmax", softmax<false>);
  r.add("ref.LogSoftmax", softmax<true>);
}

}  // namespace vdla::rt::ref
