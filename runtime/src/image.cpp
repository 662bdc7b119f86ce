#include "vdla/runtime/image.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "image_decoders.h"

namespace vdla::rt {

Image decodeImage(const uint8_t* data, size_t size, const std::string& source) {
  static const uint8_t kPng[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size == 0) throw ImageError(source + ": empty file, not an image");
  Image image;
  if (size >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
    image = detail::decodeJpeg(data, size, source);
  else if (size >= 8 && std::memcmp(data, kPng, 8) == 0)
    image = detail::decodePng(data, size, source);
  else
    throw ImageError(source + ": not a JPEG or PNG image (unrecognised file signature)");
  if (image.width <= 0 || image.height <= 0) throw ImageError(source + ": image has no pixels");
  return image;
}

Image loadImage(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ImageError(path + ": is a directory, not an image");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImageError(path + ": cannot open image (" + std::strerror(errno) + ")");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw ImageError(path + ": cannot read image");
  return decodeImage(bytes.data(), bytes.size(), path);
}

PlanarImage toPlanarFloat(const Image& image) {
  PlanarImage out;
  out.channels = 3;
  out.width = image.width;
  out.height = image.height;
  out.data.resize(size_t(3) * image.width * image.height);
  const size_t plane = size_t(image.width) * image.height;
  for (size_t i = 0; i < plane; ++i)
    for (size_t c = 0; c < 3; ++c) out.data[c * plane + i] = image.pixels[i * 3 + c];
  return out;
}

namespace {

// Source coordinates of one axis: index of the lower neighbour, offset to the
// upper one (0 at the border) and the weight of the upper one. Computed in
// float as PyTorch does for float images.
struct Taps {
  std::vector<int> lo;
  std::vector<int> step;
  std::vector<float> frac;
};

Taps bilinearTaps(int in, int out) {
  Taps t;
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  for (int i = 0; i < out; ++i) {
    float src = std::max(scale * (static_cast<float>(i) + 0.5f) - 0.5f, 0.0f);
    int lo = static_cast<int>(src);
    t.lo.push_back(lo);
    t.step.push_back(lo < in - 1 ? 1 : 0);
    t.frac.push_back(src - static_cast<float>(lo));
  }
  return t;
}

}  // namespace

PlanarImage resizeBilinear(const PlanarImage& image, int out_width, int out_height) {
  if (out_width <= 0 || out_height <= 0 || image.width <= 0 || image.height <= 0)
    throw ImageError("resizeBilinear: cannot resize " + std::to_string(image.width) + "x" +
                     std::to_string(image.height) + " to " + std::to_string(out_width) + "x" +
                     std::to_string(out_height));
  PlanarImage out;
  out.channels = image.channels;
  out.width = out_width;
  out.height = out_height;
  out.data.resize(size_t(out.channels) * out_width * out_height);
  const Taps tx = bilinearTaps(image.width, out_width);
  const Taps ty = bilinearTaps(image.height, out_height);
  for (int c = 0; c < image.channels; ++c)
    for (int y = 0; y < out_height; ++y) {
      const float h1 = ty.frac[y], h0 = 1.0f - h1;
      const float* row0 = &image.data[(size_t(c) * image.height + ty.lo[y]) * image.width];
      const float* row1 = row0 + size_t(ty.step[y]) * image.width;
      float* dst = &out.at(c, y, 0);
      for (int x = 0; x < out_width; ++x) {
        const float w1 = tx.frac[x], w0 = 1.0f - w1;
        const int x0 = tx.lo[x], x1 = x0 + tx.step[x];
        dst[x] = h0 * (w0 * row0[x0] + w1 * row0[x1]) + h1 * (w0 * row1[x0] + w1 * row1[x1]);
      }
    }
  return out;
}

PlanarImage centerCrop(const PlanarImage& image, int width, int height) {
  if (width <= 0 || height <= 0 || width > image.width || height > image.height)
    throw ImageError("centerCrop: cannot crop " + std::to_string(width) + "x" + std::to_string(height) + " from " +
                     std::to_string(image.width) + "x" + std::to_string(image.height));
  // round-half-to-even of (W - w) / 2, as Python's round() in torchvision.
  auto offset = [](int total, int size) {
    return static_cast<int>(std::nearbyint(static_cast<double>(total - size) / 2.0));
  };
  const int left = offset(image.width, width), top = offset(image.height, height);
  PlanarImage out;
  out.channels = image.channels;
  out.width = width;
  out.height = height;
  out.data.resize(size_t(out.channels) * width * height);
  for (int c = 0; c < image.channels; ++c)
    for (int y = 0; y < height; ++y)
      std::memcpy(&out.at(c, y, 0), &image.data[(size_t(c) * image.height + top + y) * image.width + left],
                  sizeof(float) * width);
  return out;
}

void savePpm(const Image& image, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out << "P6\n" << image.width << " " << image.height << "\n255\n";
  out.write(reinterpret_cast<const char*>(image.pixels.data()), static_cast<std::streamsize>(image.pixels.size()));
  if (!out) throw ImageError(path + ": cannot write image");
}

}  // namespace vdla::rt
