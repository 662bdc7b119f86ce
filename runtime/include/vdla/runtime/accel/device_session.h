// Runs the offloaded layers of a vdla-target artifact on a Device. At
// construction it places the constant image and every relocated program in
// device memory and allocates the activation arena; each "vdla.conv" step then
// launches its program, or the program chain it starts. Activations live in the arena where the compiler
// planned them (compiler/src/accel/lower.cpp): a step packs and uploads only
// the inputs that come from the host (x_resident/r_resident 0) and downloads
// and unpacks its output only when the host reads it (y_to_host 1), so a
// chain of offloaded layers never leaves the device. For per-layer checks,
// `all_outputs_to_host` brings every layer's output back to its host tensor.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vdla/driver/device.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/accel/device_program.h"
#include "vdla/runtime/accel/packed_layout.h"

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
  // Host work on the data: bytes the host transformed (padding, im2col),
  // packed and uploaded, and downloaded and unpacked. Of the uploaded
  // bytes, `packed_data_bytes` are the tensor's own (the rest is the
  // zeros of channels and batch entries past it).
  uint64_t transformed_bytes = 0, uploaded_bytes = 0, downloaded_bytes = 0, packed_data_bytes = 0;
  uint64_t unfolded_bytes = 0;  // of the tensor's own, those a column unfold copied (unfoldCopiedBytes)
  // Packed bytes that stayed in device memory instead: resident inputs read
  // there, outputs left there.
  uint64_t kept_bytes = 0;
};

class DeviceSession {
 public:
  // Throws ArtifactError when the artifact's vdla blobs are missing or damaged.
  DeviceSession(const Artifact& artifact, driver::Device& device,
                std::chrono::milliseconds timeout = std::chrono::minutes(10), bool all_outputs_to_host = false);
  ~DeviceSession();
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  // Adds the vdla kernels, bound to this session, to `registry`.
  void registerKernels(KernelRegistry& registry);

  // One entry per vdla.conv step since the last clear, in order. A program
  // chain's steps share its one launch: with module activity recorded each
  // gets its layer's share of the statistics (cycles, GEMM cycles, MACs, its
  // instructions' activity), else the first gets the whole chain's and the
  // others no cycle counters.
  const std::vector<LayerRun>& runs() const { return runs_; }
  void clearRuns() { runs_.clear(); }

 private:
  // A vdla.conv step's attributes, read on its first run: looking them up by
  // name on every run costs a board's host core more than packing some of
  // the layers' inputs.
  struct StepParams {
    InputTransform transform;
    int64_t x_block = 0, y_block = 0, x_offset = 0, r_offset = 0, y_offset = 0;
    bool x_resident = false, has_residual = false, r_resident = false, y_to_host = true;
    // Program chains (compiler/accel/program_chain.h): the chain this step
    // launches (-1: its own program), or that an earlier step ran it.
    int64_t chain_program = -1;
    bool chained = false;
    std::vector<int64_t> chain_starts;  // where each layer's instructions begin in the chain
    // Packed sizes of the inputs and output as they stay in the arena (the
    // shapes are fixed per program; a 32-bit host core divides 64-bit
    // values in a library call).
    uint64_t x_kept_bytes = 0, r_kept_bytes = 0, y_bytes = 0;
  };
  void runConv(const KernelArgs& args);
  StepParams readStepParams(const AttributeMap& attrs) const;

  driver::Device& device_;
  std::chrono::milliseconds timeout_;
  bool all_outputs_to_host_;
  DeviceModule module_;
  driver::Buffer constants_{}, io_{}, insns_{};
  std::vector<uint64_t> program_addr_;  // physical address of each program
  std::vector<LayerRun> runs_;
  // Uploads and downloads in buffers of their own: one shared buffer would
  // shrink to an output and be cleared again to the next input's size.
  std::vector<int8_t> staging_, downloads_;
  std::vector<std::optional<StepParams>> step_params_;  // per program
  // The last chain's statistics per layer (splitChainStats), for its steps
  // in turn.
  std::vector<sim::ExecutionStats> chain_stats_;
  size_t chain_next_ = 0;
};

}  // namespace vdla::rt::accel
