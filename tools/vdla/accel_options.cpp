#include "accel_options.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "vdla/hw/error.h"
#include "vdla/runtime/image.h"
#include "vdla/runtime/imagenet.h"

namespace vdla::cli {

void addAccelOptions(po::options_description& options, bool latency_hiding_option) {
  if (latency_hiding_option)
    options.add_options()("latency-hiding", po::value<std::string>()->default_value("on"),
                          "target vdla: double-buffer tiles so loads and stores overlap compute (on|off)");
  options.add_options()(
      "calib", po::value<std::string>(), "target vdla: directory of JPEG/PNG images to calibrate an fp32 model on")(
      "calib-count", po::value<int>()->default_value(8), "target vdla: at most this many calibration images")(
      "no-im2col", "target vdla: never run few-channel convolutions as 1x1 layers over host-side im2col");
}

bool parseOnOff(const std::string& v, const std::string& option) {
  if (v == "on" || v == "true" || v == "1") return true;
  if (v == "off" || v == "false" || v == "0") return false;
  throw UsageError("--" + option + " takes on or off, got '" + v + "'");
}

std::vector<std::string> imageFilesIn(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(dir + ": not a directory of calibration images");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string ext = e.path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (e.is_regular_file() && (ext == ".jpg" || ext == ".jpeg" || ext == ".png")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(dir + ": no JPEG or PNG images to calibrate on");
  return files;
}

void applyAccelOptions(const po::variables_map& vm, const ir::Graph& graph, CompileOptions& copts, bool quiet) {
  if (vm.count("latency-hiding") && vm["latency-hiding"].as<std::string>().find(',') == std::string::npos)
    copts.accel.latency_hiding = parseOnOff(vm["latency-hiding"].as<std::string>(), "latency-hiding");
  copts.accel.allow_im2col = vm.count("no-im2col") == 0;
  if (copts.target != "vdla") return;
  if (!quiet)
    copts.calibration_progress = [](size_t done, size_t total) {
      std::cerr << "\rcalibrating: " << done << "/" << total << " samples" << (done == total ? "\n" : "") << std::flush;
    };
  if (!vm.count("calib")) return;
  const int count = vm["calib-count"].as<int>();
  if (count < 1) throw UsageError("--calib-count must be at least 1");
  if (graph.inputs().size() != 1) throw Error("--calib needs a model with one image input");
  const rt::TensorType& in = graph.inputs()[0]->type();
  if (in.dtype != rt::DType::F32 || in.shape.size() != 4 || in.shape[1] != 3 || in.shape[2] != in.shape[3])
    throw Error("--calib needs an f32[N,3,S,S] image input, the model's is " + in.toString());
  std::vector<std::string> files = imageFilesIn(vm["calib"].as<std::string>());
  if (static_cast<int>(files.size()) > count) files.resize(static_cast<size_t>(count));
  rt::PreprocessOptions pre;
  pre.crop = static_cast<int>(in.shape[2]);
  pre.resize = pre.crop * 256 / 224;
  // Each sample fills the whole batch with copies of one image.
  for (const std::string& f : files) {
    rt::Tensor one = rt::preprocessImageNet(rt::loadImage(f), pre);
    rt::Tensor batch(in.dtype, in.shape);
    const size_t each = one.byteSize();
    for (int64_t n = 0; n < in.shape[0]; ++n)
      std::copy_n(static_cast<const uint8_t*>(one.raw()), each, static_cast<uint8_t*>(batch.raw()) + n * each);
    copts.calibration.push_back({batch});
  }
}

}  // namespace vdla::cli
