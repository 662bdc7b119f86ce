#include "vdla/api/evaluate.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "vdla/api/calibration.h"
#include "vdla/driver/device.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/executor.h"

namespace vdla::api {

std::vector<ImageResult> evaluateImages(const rt::Artifact& artifact, const rt::KernelRegistry* kernels,
                                        const std::vector<std::string>& images, const EvaluateOptions& options) {
  if (options.top < 1) throw Error("evaluate: top must be at least 1, got " + std::to_string(options.top));
  if (options.threads < 1) throw Error("evaluate: threads must be at least 1");
  if (artifact.inputs.size() != 1)
    throw Error("evaluate: the model has " + std::to_string(artifact.inputs.size()) +
                " inputs; an image classifier has one");
  const bool on_device = rt::targetNeedsDevice(artifact.target);
  if (on_device && options.device == "cycle" && options.threads > 1)
    throw Error(
        "evaluate: the cycle-accurate simulator runs one network at a time per process (threads 1, or "
        "several processes)");
  hw::HwConfig cfg;
  if (on_device) cfg = options.config ? *options.config : hw::loadConfig(artifact.hw_config_name);
  const rt::TensorType in_type = artifact.tensors.at(artifact.inputs.at(0)).type;

  std::vector<ImageResult> results(images.size());
  std::atomic<size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto worker = [&]() {
    try {
      std::unique_ptr<driver::Device> device;
      rt::ExecutorOptions eopts;
      if (on_device) {
        device = driver::createDevice(options.device, cfg);
        eopts.device = device.get();
      }
      std::unique_ptr<rt::Executor> executor = kernels ? std::make_unique<rt::Executor>(artifact, *kernels, eopts)
                                                       : std::make_unique<rt::Executor>(artifact, eopts);
      for (size_t i = next++; i < images.size(); i = next++) {
        {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (error) return;
        }
        const auto start = std::chrono::steady_clock::now();
        const std::vector<rt::Tensor> outputs = executor->run({imageInputFor(images[i], in_type)});
        const rt::Tensor& scores = outputs.at(0);
        if (scores.dtype() != rt::DType::F32)
          throw Error("evaluate: the model's first output is " + scores.type().toString() + ", not f32 class scores");
        results[i].image = images[i];
        results[i].top = rt::topK(scores, options.top, 0);
        results[i].seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  const unsigned n = std::max(1u, std::min<unsigned>(options.threads, unsigned(images.size())));
  if (n == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  if (error) std::rethrow_exception(error);
  return results;
}

}  // namespace vdla::api
