#include "model_loading.h"

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
