#include "model_loading.h"

#include <cstdio>

namespace vdla::cli {

void addModelOptions(po::options_description& options) {
  options.add_options()("batch", po::value<int64_t>()->default_value(1), "batch size of a zoo model")(
      "image-size", po::value<int64_t>()->default_value(224), "input height and width of a zoo model")(
      "seed", po::value<uint64_t>()->default_value(0), "weight seed of a zoo model");
}

ModelOptions modelOptionsFrom(const po::variables_map& vm) {
  ModelOptions o;
  o.batch = vm["batch"].as<int64_t>();
  o.image_size = vm["image-size"].as<int64_t>();
  o.seed = vm["seed"].as<uint64_t>();
  if (o.batch < 1) throw UsageError("--batch must be at least 1, got " + std::to_string(o.batch));
  if (o.image_size < 1) throw UsageError("--image-size must be at least 1, got " + std::to_string(o.image_size));
  return o;
}

bool modelOptionsGiven(const po::variables_map& vm) {
  for (const char* name : {"batch", "image-size", "seed"})
    if (vm.count(name) && !vm[name].defaulted()) return true;
  return false;
}

}  // namespace vdla::cli

namespace vdla::cli {

namespace {
std::string printf1(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}
}  // namespace

std::string formatCount(double n) {
  if (n >= 1e9) return printf1("%.2fG", n / 1e9);
  if (n >= 1e6) return printf1("%.2fM", n / 1e6);
  if (n >= 1e4) return printf1("%.1fk", n / 1e3);
  return printf1("%.0f", n);
}

std::string formatBytes(double bytes) {
  if (bytes >= 1 << 30) return printf1("%.2f GiB", bytes / (1 << 30));
  if (bytes >= 1 << 20) return printf1("%.1f MiB", bytes / (1 << 20));
  if (bytes >= 1 << 10) return printf1("%.1f KiB", bytes / (1 << 10));
  return printf1("%.0f B", bytes);
}

std::string formatSeconds(double seconds) {
  if (seconds >= 10) return printf1("%.1f s", seconds);
  if (seconds >= 1e-3) return printf1("%.1f ms", seconds * 1e3);
  return printf1("%.1f us", seconds * 1e6);
}

}  // namespace vdla::cli
