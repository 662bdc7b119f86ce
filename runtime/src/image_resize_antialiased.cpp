// Antialiased bilinear resampling of 8-bit images, computed the way PIL's
// Image.resize(size, Image.BILINEAR) computes it, so that the model input is
// the one torchvision's Resize gives on a PIL image (models are trained and
// evaluated on that input; plain 2-tap bilinear skips pixels when shrinking
// and costs accuracy).
//
// Each axis is a 1-D convolution with a triangle ("tent") filter whose support
// grows with the reduction factor, so that every input pixel contributes when
// the image shrinks. Weights are normalised per output pixel and turned into
// fixed-point integers; the horizontal pass runs first and rounds its result
// to 8 bits, the vertical pass reads those 8-bit values. Both the rounding of
// the intermediate image and the fixed-point weights change results by a grey
// level here and there, which is why they are reproduced rather than computed
// in float.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "vdla/runtime/image.h"

namespace vdla::rt {

namespace {

// Fraction bits of the fixed-point weights. PIL uses 22 (32 bits - 8 bits of
// sample - 2 bits of headroom, so that its sums fit a signed 32-bit integer);
// the rounding of the weights to this precision shows in the results, so the
// same precision is used here.
constexpr int kWeightBits = 22;

// The weights of one axis: output pixel o reads `count[o]` consecutive input
// pixels starting at `first[o]`, weighted by weights[o * stride + j].
struct AxisWeights {
  std::vector<int> first;
  std::vector<int> count;
  std::vector<int32_t> weights;
  int stride = 0;
};

double triangle(double x) {
  x = std::fabs(x);
  return x < 1.0 ? 1.0 - x : 0.0;
}

AxisWeights axisWeights(int in_size, int out_size) {
  const double scale = static_cast<double>(in_size) / out_size;
  // Shrinking widens the filter by the reduction factor (the antialiasing);
  // enlarging keeps the plain bilinear tent of radius 1.
  const double filter_scale = std::max(scale, 1.0);
  const double support = 1.0 * filter_scale;
  const double inverse_filter_scale = 1.0 / filter_scale;
  AxisWeights axis;
  axis.stride = static_cast<int>(std::ceil(support)) * 2 + 1;
  axis.first.resize(out_size);
  axis.count.resize(out_size);
  axis.weights.assign(size_t(out_size) * axis.stride, 0);
  std::vector<double> w(axis.stride);
  for (int o = 0; o < out_size; ++o) {
    // Pixel centres sit at half-integers: output pixel o covers input
    // [o * scale, (o + 1) * scale), centred at (o + 0.5) * scale.
    const double center = (o + 0.5) * scale;
    // Truncation toward zero, then clamping to the image: both ends of the
    // window are rounded to the nearest pixel boundary.
    const int lo = std::max(static_cast<int>(center - support + 0.5), 0);
    const int hi = std::min(static_cast<int>(center + support + 0.5), in_size);
    const int n = std::min(hi - lo, axis.stride);
    double total = 0;
    for (int j = 0; j < n; ++j) {
      // Distance from the centre of input pixel lo + j to the output centre,
      // in units of the (widened) filter.
      w[j] = triangle((lo + j - center + 0.5) * inverse_filter_scale);
      total += w[j];
    }
    axis.first[o] = lo;
    axis.count[o] = n;
    int32_t* fixed = &axis.weights[size_t(o) * axis.stride];
    for (int j = 0; j < n; ++j) {
      const double normalised = total != 0.0 ? w[j] / total : w[j];
      // The tent is never negative, so rounding is half-up.
      fixed[j] = static_cast<int32_t>(0.5 + normalised * (1 << kWeightBits));
    }
  }
  return axis;
}

// Sum of samples times fixed-point weights, rounded to the nearest 8-bit value
// and clamped (rounded weights may sum to slightly more than 1.0).
uint8_t weightedSample(const uint8_t* src, ptrdiff_t step, const int32_t* weights, int count) {
  int64_t sum = int64_t{1} << (kWeightBits - 1);
  for (int j = 0; j < count; ++j) sum += int64_t{src[j * step]} * weights[j];
  return static_cast<uint8_t>(std::clamp<int64_t>(sum >> kWeightBits, 0, 255));
}

Image resizeRows(const Image& in, int out_width) {
  const AxisWeights axis = axisWeights(in.width, out_width);
  Image out;
  out.width = out_width;
  out.height = in.height;
  out.pixels.resize(size_t(out_width) * in.height * 3);
  for (int y = 0; y < in.height; ++y) {
    const uint8_t* row = &in.pixels[size_t(y) * in.width * 3];
    uint8_t* dst = &out.pixels[size_t(y) * out_width * 3];
    for (int x = 0; x < out_width; ++x) {
      const int32_t* weights = &axis.weights[size_t(x) * axis.stride];
      for (int c = 0; c < 3; ++c)
        dst[size_t(x) * 3 + c] = weightedSample(row + size_t(axis.first[x]) * 3 + c, 3, weights, axis.count[x]);
    }
  }
  return out;
}

Image resizeColumns(const Image& in, int out_height) {
  const AxisWeights axis = axisWeights(in.height, out_height);
  const ptrdiff_t row_step = ptrdiff_t(in.width) * 3;
  Image out;
  out.width = in.width;
  out.height = out_height;
  out.pixels.resize(size_t(in.width) * out_height * 3);
  for (int y = 0; y < out_height; ++y) {
    const int32_t* weights = &axis.weights[size_t(y) * axis.stride];
    const uint8_t* top = &in.pixels[size_t(axis.first[y]) * row_step];
    uint8_t* dst = &out.pixels[size_t(y) * row_step];
    for (ptrdiff_t i = 0; i < row_step; ++i) dst[i] = weightedSample(top + i, row_step, weights, axis.count[y]);
  }
  return out;
}

}  // namespace

Image resizeBilinearAntialiased(const Image& image, int out_width, int out_height) {
  if (out_width <= 0 || out_height <= 0 || image.width <= 0 || image.height <= 0 ||
      image.pixels.size() != size_t(image.width) * image.height * 3)
    throw ImageError("resizeBilinearAntialiased: cannot resize " + std::to_string(image.width) + "x" +
                     std::to_string(image.height) + " to " + std::to_string(out_width) + "x" +
                     std::to_string(out_height));
  // An axis whose size does not change is left alone (its weights would be
  // the identity anyway); the horizontal pass comes first.
  Image out = image.width == out_width ? image : resizeRows(image, out_width);
  if (out.height != out_height) out = resizeColumns(out, out_height);
  return out;
}

}  // namespace vdla::rt
