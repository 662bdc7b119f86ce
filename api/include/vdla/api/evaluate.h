#pragma once
// A compiled image classifier run over a set of photos: each preprocessed
// for the model's input, run on a device, its best classes kept. The unit of
// work of an accuracy run, which the Python module also spreads over a Ray
// cluster (each task a slice of the photos).
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/imagenet.h"
#include "vdla/runtime/kernel_registry.h"

namespace vdla::api {

struct EvaluateOptions {
  std::string device = "fsim";  // for artifacts that run on an accelerator
  // The device's config; required when the artifact's config is not a shipped one.
  const hw::HwConfig* config = nullptr;
  int top = 5;
  // Executors run side by side, each on its own device. The cycle-accurate
  // simulator (one SystemC kernel per process) takes only 1.
  unsigned threads = 1;
};

struct ImageResult {
  std::string image;
  std::vector<rt::Prediction> top;  // best first (the first output's first row)
  double seconds = 0;               // preprocessing and run
};

// Results in the order of `images`. `kernels`: the registry of code compiled
// in this process (CompileReport::kernels), or null for the global one.
// Throws vdla::Error naming the image or the option at fault.
std::vector<ImageResult> evaluateImages(const rt::Artifact& artifact, const rt::KernelRegistry* kernels,
                                        const std::vector<std::string>& images, const EvaluateOptions& options);

}  // namespace vdla::api
