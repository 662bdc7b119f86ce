// Runs the offloaded layers of a vdla-target artifact on a Device. At
// construction it places the constant image and every relocated program in
// device memory and allocates the activation arena; each "vdla.conv" step then
// packs its host inputs into the arena, launches its program and unpacks the
// output (every step output is a real host tensor, so CPU fallback steps and
// per-layer comparisons read them like any other).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "vdla/driver/device.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/accel/device_program.h"

namespace vdla::rt::accel {

// The kernel name of an offloaded convolution step.
constexpr const char* kConvKernel = "vdla.conv";

struct LayerRun {
  std::string name;
  driver::RunResult result;  // stats of the device run (cycles on timing models)
  // Host time around it: input transform, packing and upload before the run;
  // the run itself (a simulator's own time on simulated devices); download
  // and unpacking after it.
  double host_before_seconds = 0, run_seconds = 0, host_after_seconds = 0;
};

class DeviceSession {
 public:
  // Throws ArtifactError when the artifact's vdla blobs are missing or damaged.
  DeviceSession(const Artifact& artifact, driver::Device& device,
                std::chrono::milliseconds timeout = std::chrono::minutes(10));
  ~DeviceSession();
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  // Adds the vdla kernels, bound to this session, to `registry`.
  void registerKernels(KernelRegistry& registry);

  // One entry per device launch since the last clear, in order.
  const std::vector<LayerRun>& runs() const { return runs_; }
  void clearRuns() { runs_.clear(); }

 private:
  void runConv(const KernelArgs& args);

  driver::Device& device_;
  std::chrono::milliseconds timeout_;
  DeviceModule module_;
  driver::Buffer constants_{}, io_{}, insns_{};
  std::vector<uint64_t> program_addr_;  // physical address of each program
  std::vector<LayerRun> runs_;
  std::vector<int8_t> staging_;
};

}  // namespace vdla::rt::accel
