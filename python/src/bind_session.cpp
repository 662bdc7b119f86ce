// Running artifacts on NumPy arrays, on any device, and accuracy runs over
// photos (the unit of work vdla.evaluate spreads over cores or a Ray cluster).
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <nlohmann/json.hpp>

#include "bindings.h"
#include "handles.h"
#include "options.h"
#include "tensor_convert.h"
#include "vdla/api/calibration.h"
#include "vdla/api/evaluate.h"
#include "vdla/compiler/synthetic_input.h"
#include "vdla/driver/device.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/executor.h"

namespace nb = nanobind;

namespace vdla::python {

namespace {

// An artifact bound to an executor (and, for accelerator targets, to a device
// of the artifact's config).
class Session {
 public:
  Session(std::shared_ptr<ArtifactHandle> artifact, const std::string& device, const std::string& config, bool profile)
      : artifact_(std::move(artifact)) {
    rt::ExecutorOptions eopts;
    eopts.profile = profile;
    if (rt::targetNeedsDevice(artifact_->artifact.target)) {
      config_ = configFromSpec(config.empty() ? artifact_->artifact.hw_config_name : config);
      // A profile on the cycle simulator records module activity, which
      // splits a program chain's cycles into its layers.
      driver::DeviceOptions dopts;
      dopts.record_activity = profile && device == "cycle";
      device_ = driver::createDevice(device, config_, dopts);
      eopts.device = device_.get();
    } else if (device != "fsim" && !device.empty()) {
      throw Error("device '" + device + "': target '" + artifact_->artifact.target +
                  "' runs on the host; devices are for target vdla");
    }
    executor_ = artifact_->kernels ? std::make_unique<rt::Executor>(artifact_->artifact, *artifact_->kernels, eopts)
                                   : std::make_unique<rt::Executor>(artifact_->artifact, eopts);
  }

  std::vector<nb::object> run(const std::vector<InArray>& arrays) {
    if (arrays.size() != executor_->numInputs())
      throw Error("run: the model takes " + std::to_string(executor_->numInputs()) + " inputs, got " +
                  std::to_string(arrays.size()));
    std::vector<rt::Tensor> inputs;
    for (size_t i = 0; i < arrays.size(); ++i)
      inputs.push_back(
          tensorFromArray(arrays[i], "input " + std::to_string(i) + " ('" + executor_->input(i).name + "')"));
    std::vector<rt::Tensor> outputs;
    {
      nb::gil_scoped_release release;
      outputs = executor_->run(inputs);
    }
    std::vector<nb::object> result;
    for (rt::Tensor& t : outputs) result.push_back(arrayFromTensor(std::move(t)));
    return result;
  }

  std::string profileJson() const {
    nlohmann::json steps = nlohmann::json::array();
    for (const rt::StepProfile& p : executor_->profile()) {
      nlohmann::json s = {{"name", p.name}, {"kernel", p.kernel}, {"seconds", p.seconds}, {"on_device", p.on_device}};
      if (p.on_device) {
        s["host_before_seconds"] = p.host_before_seconds;
        s["device_seconds"] = p.device_seconds;
        s["host_after_seconds"] = p.host_after_seconds;
        s["host_transformed_bytes"] = p.host_transformed_bytes;
        s["host_uploaded_bytes"] = p.host_uploaded_bytes;
        s["host_packed_data_bytes"] = p.host_packed_data_bytes;
        s["host_unfolded_bytes"] = p.host_unfolded_bytes;
        s["host_downloaded_bytes"] = p.host_downloaded_bytes;
        s["device_kept_bytes"] = p.device_kept_bytes;
        if (p.device_stats.has_cycle_counters) {
          s["cycles"] = p.device_stats.cycles;
          s["gemm_cycles"] = p.device_stats.cycle_counters.gemm_uop_cycles;
        }
      }
      steps.push_back(s);
    }
    return steps.dump();
  }

  void setProfiling(bool on) { executor_->setProfiling(on); }

 private:
  std::shared_ptr<ArtifactHandle> artifact_;
  hw::HwConfig config_;
  std::unique_ptr<driver::Device> device_;
  std::unique_ptr<rt::Executor> executor_;
};

}  // namespace

void bindSession(nb::module_& m) {
  nb::class_<Session>(m, "Session", "An artifact ready to run (see vdla.Session).")
      .def(nb::init<std::shared_ptr<ArtifactHandle>, const std::string&, const std::string&, bool>(),
           nb::arg("artifact"), nb::arg("device"), nb::arg("config"), nb::arg("profile"))
      .def("run", &Session::run, nb::arg("inputs"), "Runs on one array per input; returns the outputs.")
      .def("profile_json", &Session::profileJson, "Per-step times (and device cycles) of the last run, as JSON.")
      .def("set_profiling", &Session::setProfiling, nb::arg("on"));

  m.def(
      "evaluate_images",
      [](std::shared_ptr<ArtifactHandle> artifact, const std::vector<std::string>& images, const std::string& device,
         const std::string& config, int top, unsigned threads) {
        api::EvaluateOptions o;
        o.device = device;
        o.top = top;
        o.threads = threads;
        hw::HwConfig cfg;
        if (!config.empty()) {
          cfg = configFromSpec(config);
          o.config = &cfg;
        }
        std::vector<api::ImageResult> results;
        {
          nb::gil_scoped_release release;
          results = api::evaluateImages(artifact->artifact, artifact->kernels.get(), images, o);
        }
        nlohmann::json list = nlohmann::json::array();
        for (const auto& r : results) {
          nlohmann::json top_list = nlohmann::json::array();
          for (const auto& p : r.top)
            top_list.push_back({{"index", p.index}, {"score", p.score}, {"probability", p.probability}});
          list.push_back({{"image", r.image}, {"top", top_list}, {"seconds", r.seconds}});
        }
        return list.dump();
      },
      nb::arg("artifact"), nb::arg("images"), nb::arg("device"), nb::arg("config"), nb::arg("top"), nb::arg("threads"),
      "Runs an image classifier over photos; per-image best classes as JSON.");
  m.def(
      "image_input",
      [](const std::string& path, const std::vector<int64_t>& shape) {
        return arrayFromTensor(api::imageInputFor(path, rt::TensorType{rt::DType::F32, shape, rt::Layout::RowMajor}));
      },
      nb::arg("path"), nb::arg("shape"), "A photo preprocessed for an f32[N,3,S,S] ImageNet model input.");
  m.def(
      "seeded_input",
      [](const std::vector<int64_t>& shape) {
        return arrayFromTensor(seededUniformInput(rt::TensorType{rt::DType::F32, shape, rt::Layout::RowMajor}));
      },
      nb::arg("shape"), "The seeded f32 input (uniform in [-1, 1)) that profiles and benchmarks run.");
  m.def("image_files", &api::imageFilesIn, nb::arg("directory"), "The JPEG and PNG files of a directory, sorted.");
}

}  // namespace vdla::python
