// What the compile driver is asked to do (CompileOptions) and what it
// reports (CompileReport). These are shared by the compile driver
// (vdla/compiler/compile.h), the target stages of every back end
// (vdla/compiler/target.h) and the API, CLI and Python layers above them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vdla/compiler/accel/lower.h"
#include "vdla/compiler/cuda_options.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/quant/qlinear_to_qconv.h"
#include "vdla/compiler/quant/quantize.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/kernel_registry.h"

namespace vdla {

struct CompileOptions {
  std::string target = "ref";
  // A built-in hardware config name or a JSON file; its name and hash are
  // stamped into the artifact (and, for target vdla, bound the code generator).
  std::string hw_config = "pynq";
  // A config given as a value (a design point that exists only in memory);
  // when set it is used instead of hw_config.
  std::optional<hw::HwConfig> hw_config_value;
  PipelineOptions pipeline;
  // Run the standard pipeline (off: lower the graph as it is; it must be typed).
  bool optimize = true;

  // ---- target "vdla"
  accel::AccelOptions accel;
  // An fp32 graph is quantised first, calibrated on these samples (one tensor
  // per graph input each). Empty: a few seeded synthetic samples (standard
  // normal, the statistics of preprocessed images), which is only adequate
  // for graphs whose weights are not trained either.
  std::vector<std::vector<rt::Tensor>> calibration;
  quant::QuantizeOptions quantize;
  // Called with (done, total) while calibrating.
  std::function<void(size_t, size_t)> calibration_progress;
  // Compile the steps the accelerator leaves to the CPU with the LLVM back
  // end (stage "cpu-fallback"); a step whose operator it cannot compile
  // keeps its reference kernel, with the reason in the layer's decision.
  // Where the code goes follows llvm_library_cpu.
  bool llvm_cpu_fallback = true;

  // ---- target "cuda" (available when the build found the CUDA toolkit)
  CudaCodegenOptions cuda;

  // ---- target "llvm", and the CPU steps of target "vdla"
  // Empty: compile in process with the JIT (CompileReport::kernels runs the
  // artifact). "host", "armv7" or "aarch64": compile ahead of time into a
  // shared library inside the artifact, which can be saved and run by the
  // runtime alone on that CPU.
  std::string llvm_library_cpu;
};

struct CompileReport {
  // Every graph pass, then every target stage (PassRecord::target names the
  // target), in the order they ran.
  PassReport passes;
  double pipeline_seconds = 0;  // the graph passes
  double lowering_seconds = 0;  // the target stages of phase StagePhase::Lowering
  // Targets "vdla" (and "llvm" for converted models): whether the graph was
  // quantised here, and what the accelerator back end decided for every node.
  bool quantized = false;
  size_t calibration_samples = 0;
  double quantize_seconds = 0;  // the target stages of phase StagePhase::Quantize
  quant::QuantizeReport quantization;
  // Whether a pre-quantised model's integer operators were converted (its
  // own scales honoured) instead, and how.
  bool converted_qlinear = false;
  quant::QLinearConversionReport qlinear;
  std::vector<accel::LayerDecision> layers;
  // Kernels bound to code compiled in this process (target "llvm" with the
  // JIT); run the artifact with rt::Executor(artifact, *kernels).
  std::shared_ptr<rt::KernelRegistry> kernels;
};

}  // namespace vdla
