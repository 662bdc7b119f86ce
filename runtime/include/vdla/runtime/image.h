// Image decoding and the geometric operations of classification preprocessing.
// JPEG is decoded with libjpeg (the same library and default settings as PIL,
// so pixels match PIL's exactly), PNG with stb_image. Every decoded image is
// 8-bit RGB as PIL's Image.open(...).convert("RGB") gives it: grey is
// replicated, alpha dropped, CMYK JPEGs read with Adobe's inverted polarity
// and converted with PIL's formula; 16-bit PNG samples keep their high byte.
// EXIF orientation is ignored (as PIL does unless asked to transpose).
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

// Bilinear resampling with antialiasing on 8-bit pixels, equal to PIL's
// Image.resize((out_width, out_height), Image.BILINEAR) and so to torchvision's
// Resize on PIL images. Per axis, with scale = in / out and
// f = max(scale, 1), output pixel o is centred at input coordinate
// c = (o + 0.5) * scale and averages input pixels
//   i = max(int(c - f + 0.5), 0) .. min(int(c + f + 0.5), in) - 1
// with the triangle weights max(0, 1 - |i + 0.5 - c| / f), normalised to sum
// to 1 and rounded to fixed point with 22 fraction bits. Rows are resized
// first, their result rounded to 8 bits, then columns; an axis whose size does
// not change is copied. This is what ImageNet preprocessing uses.
Image resizeBilinearAntialiased(const Image& image, int out_width, int out_height);

// Bilinear resampling without antialiasing, with half-pixel centres: the same
// as PyTorch's interpolate(mode="bilinear", align_corners=False,
// antialias=False). Output pixel x samples the input at
//   sx = max((x + 0.5) * in_w / out_w - 0.5, 0)
// between columns floor(sx) and min(floor(sx) + 1, in_w - 1), weighted by the
// fractional part (likewise for rows). When shrinking it skips input pixels
// (aliasing); preprocessImageNet uses resizeBilinearAntialiased instead.
PlanarImage resizeBilinear(const PlanarImage& image, int out_width, int out_height);

// The window of width x height whose top-left corner is at
// (round((W - width) / 2), round((H - height) / 2)) with round-half-to-even, as
// torchvision's CenterCrop. Throws when the image is smaller than the window.
PlanarImage centerCrop(const PlanarImage& image, int width, int height);

// Writes a binary PPM (P6); for debugging and tests.
void savePpm(const Image& image, const std::string& path);

}  // namespace vdla::rt
