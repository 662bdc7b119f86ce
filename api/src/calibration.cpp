#include "vdla/api/calibration.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "vdla/hw/error.h"
#include "vdla/runtime/image.h"
#include "vdla/runtime/imagenet.h"

namespace vdla::api {

std::vector<std::string> imageFilesIn(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(dir + ": not a directory of images");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".png")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(dir + ": no JPEG or PNG images");
  return files;
}

rt::Tensor imageInputFor(const std::string& image_path, const rt::TensorType& in) {
  if (in.dtype != rt::DType::F32 || in.shape.size() != 4 || in.shape[1] != 3 || in.shape[2] != in.shape[3])
    throw Error(image_path + ": images need a model with an f32[N,3,S,S] input, the model's is " + in.toString());
  rt::PreprocessOptions pre;
  pre.crop = static_cast<int>(in.shape[2]);
  pre.resize = pre.crop * 256 / 224;
  const rt::Tensor one = rt::preprocessImageNet(rt::loadImage(image_path), pre);
  rt::Tensor batch(in.dtype, in.shape);
  const size_t each = one.byteSize();
  for (int64_t n = 0; n < in.shape[0]; ++n)
    std::copy_n(static_cast<const uint8_t*>(one.raw()), each, static_cast<uint8_t*>(batch.raw()) + n * each);
  return batch;
}

std::vector<std::vector<rt::Tensor>> calibrationFromImages(const std::string& dir, int count, const ir::Graph& graph) {
  if (count < 1) throw Error("calibration needs at least 1 image, got a count of " + std::to_string(count));
  if (graph.inputs().size() != 1) throw Error("calibrating on images needs a model with one image input");
  std::vector<std::string> files = imageFilesIn(dir);
  if (static_cast<int>(files.size()) > count) files.resize(static_cast<size_t>(count));
  std::vector<std::vector<rt::Tensor>> samples;
  for (const std::string& f : files) samples.push_back({imageInputFor(f, graph.inputs()[0]->type())});
  return samples;
}

}  // namespace vdla::api
