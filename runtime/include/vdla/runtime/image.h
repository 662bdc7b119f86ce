// Image decoding and the geometric operations of classification preprocessing.
// JPEG is decoded with libjpeg (the same library and default settings as PIL,
// so pixels match PIL's exactly), PNG with stb_image. Every decoded image is
// 8-bit RGB: grey is replicated, alpha dropped (as PIL's convert("RGB")), 16-bit
// PNG samples keep their high byte.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace vdla::rt {

// A bad, truncated or unsupported image; the message names the file.
class ImageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// 8-bit RGB, interleaved (HWC), rows top to bottom.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // width * height * 3

  uint8_t at(int x, int y, int c) const { return pixels[(static_cast<size_t>(y) * width + x) * 3 + c]; }
};

// Decodes JPEG or PNG bytes (recognised by their signature). `source` names the
// image in errors.
Image decodeImage(const uint8_t* data, size_t size, const std::string& source);
Image loadImage(const std::string& path);

// Planar float image (CHW), values as given (0..255 after toPlanarFloat).
struct PlanarImage {
  int channels = 0;
  int width = 0;
  int height = 0;
  std::vector<float> data;  // channels * height * width

  float& at(int c, int y, int x) { return data[(static_cast<size_t>(c) * height + y) * width + x]; }
  float at(int c, int y, int x) const { return data[(static_cast<size_t>(c) * height + y) * width + x]; }
};

PlanarImage toPlanarFloat(const Image& image);

// Bilinear resampling without antialiasing, with half-pixel centres: the same
// as PyTorch's interpolate(mode="bilinear", align_corners=False,
// antialias=False). Output pixel x samples the input at
//   sx = max((x + 0.5) * in_w / out_w - 0.5, 0)
// between columns floor(sx) and min(floor(sx) + 1, in_w - 1), weighted by the
// fractional part (likewise for rows).
PlanarImage resizeBilinear(const PlanarImage& image, int out_width, int out_height);

// The window of width x height whose top-left corner is at
// (round((W - width) / 2), round((H - height) / 2)) with round-half-to-even, as
// torchvision's CenterCrop. Throws when the image is smaller than the window.
PlanarImage centerCrop(const PlanarImage& image, int width, int height);

// Writes a binary PPM (P6); for debugging and tests.
void savePpm(const Image& image, const std::string& path);

}  // namespace vdla::rt
