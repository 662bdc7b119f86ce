#include "vdla/runtime/imagenet.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>

namespace vdla::rt {

void resizedSize(int width, int height, int resize, int* out_width, int* out_height) {
  // torchvision: the short side becomes `resize`, the long one int(resize * long / short).
  auto longSide = [&](int64_t long_side, int64_t short_side) {
    return static_cast<int>(
        std::min<int64_t>(int64_t{resize} * long_side / std::max<int64_t>(short_side, 1), INT32_MAX));
  };
  if (width <= height) {
    *out_width = resize;
    *out_height = longSide(height, width);
  } else {
    *out_height = resize;
    *out_width = longSide(width, height);
  }
}

Tensor preprocessImageNet(const Image& image, const PreprocessOptions& options) {
  if (options.resize < options.crop || options.crop <= 0)
    throw ImageError("preprocessImageNet: resize " + std::to_string(options.resize) + " is smaller than crop " +
                     std::to_string(options.crop));
  int w = 0, h = 0;
  resizedSize(image.width, image.height, options.resize, &w, &h);
  if (int64_t{w} * h > (int64_t{1} << 26))
    throw ImageError("preprocessImageNet: a " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                     " image would be resized to " + std::to_string(w) + "x" + std::to_string(h) +
                     " (aspect ratio too extreme)");
  // Resize on 8-bit pixels, as torchvision does on a PIL image, then crop;
  // only then to float (ToTensor: pixel / 255 in float) and normalise, in the
  // same float operations as torchvision, so that the values agree bit for bit.
  const Image resized = resizeBilinearAntialiased(image, w, h);
  const PlanarImage cropped = centerCrop(toPlanarFloat(resized), options.crop, options.crop);
  Tensor t(DType::F32, {1, 3, options.crop, options.crop});
  float* dst = t.data<float>();
  const size_t plane = size_t(options.crop) * options.crop;
  for (size_t c = 0; c < 3; ++c)
    for (size_t i = 0; i < plane; ++i)
      dst[c * plane + i] = (cropped.data[c * plane + i] / 255.0f - options.mean[c]) / options.stddev[c];
  return t;
}

std::vector<std::string> loadClassLabels(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open labels file (" + std::strerror(errno) + ")");
  std::vector<std::string> labels;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    labels.push_back(line);
  }
  while (!labels.empty() && labels.back().empty()) labels.pop_back();
  if (labels.empty()) throw std::runtime_error(path + ": labels file has no lines");
  return labels;
}

std::vector<Prediction> topK(const Tensor& scores, int k, int64_t row) {
  if (scores.dtype() != DType::F32)
    throw std::invalid_argument("topK: scores are " + scores.type().toString() + ", expected f32");
  int64_t classes = scores.rank() == 0 ? 1 : scores.dim(-1);
  int64_t rows = classes ? scores.numElements() / classes : 0;
  if (row < 0 || row >= rows)
    throw std::invalid_argument("topK: row " + std::to_string(row) + " of " + scores.type().toString());
  const float* raw = scores.data<float>() + row * classes;
  // NaN ranks below everything (and keeps the ordering strict).
  std::vector<double> p(raw, raw + classes);
  for (double& v : p)
    if (std::isnan(v)) v = -INFINITY;
  double max = classes ? *std::max_element(p.begin(), p.end()) : 0;
  double sum = 0;
  for (double v : p) sum += std::exp(v - max);
  std::vector<int64_t> order(classes);
  std::iota(order.begin(), order.end(), 0);
  const size_t n = static_cast<size_t>(std::clamp<int64_t>(k, 0, classes));
  std::partial_sort(order.begin(), order.begin() + n, order.end(),
                    [&](int64_t a, int64_t b) { return p[a] > p[b] || (p[a] == p[b] && a < b); });
  std::vector<Prediction> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back({order[i], raw[order[i]], static_cast<float>(std::exp(p[order[i]] - max) / sum)});
  return out;
}

}  // namespace vdla::rt
