// ImageNet classification around a model: the standard preprocessing
// (torchvision's Resize(256) + CenterCrop(224) + ToTensor + Normalize on a PIL
// image), class labels and top-k.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "vdla/runtime/image.h"
#include "vdla/runtime/tensor.h"

namespace vdla::rt {

struct PreprocessOptions {
  // The shorter side is resized to this (the longer one keeps the aspect ratio,
  // truncated: long * resize / short), then the centre crop x crop is taken.
  int resize = 256;
  int crop = 224;
  std::array<float, 3> mean = {0.485f, 0.456f, 0.406f};
  std::array<float, 3> stddev = {0.229f, 0.224f, 0.225f};
};

// The model input for one image: f32[1,3,crop,crop], NCHW, channel c holding
// (pixel / 255 - mean[c]) / stddev[c] of the image resized (8-bit, bilinear
// with antialiasing: resizeBilinearAntialiased) to resizedSize and centre
// cropped (centerCrop's offsets). The same as torchvision's
//   Compose([Resize(256), CenterCrop(224), ToTensor(), Normalize(mean, std)])
// on Image.open(path).convert("RGB") (see docs/artifact.md, "Images").
Tensor preprocessImageNet(const Image& image, const PreprocessOptions& options = {});

// Size of the resized image before the crop: the shorter side becomes `resize`.
void resizedSize(int width, int height, int resize, int* out_width, int* out_height);

// Class names, one per line (trailing whitespace and '\r' stripped); errors
// name the file. Empty files are refused.
std::vector<std::string> loadClassLabels(const std::string& path);

struct Prediction {
  int64_t index = 0;
  float score = 0;        // the model's output (a logit)
  float probability = 0;  // softmax over the row
};

// The k best classes of row `row` of a [N, classes] (or [classes]) f32 tensor,
// best first; ties go to the lower index.
std::vector<Prediction> topK(const Tensor& scores, int k, int64_t row = 0);

}  // namespace vdla::rt
