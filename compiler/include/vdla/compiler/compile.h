// The compile driver: optimises a graph with the standard pipeline and lowers
// it to an artifact for a target. Lowering for target "ref" is one step per
// node, running the node's reference kernel ("ref.Conv") with the node's
// attributes; the other targets join with their backends.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vdla/compiler/accel/lower.h"
#include "vdla/compiler/cuda_options.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/quant/qlinear_to_qconv.h"
#include "vdla/compiler/quant/quantize.h"
#include "vdla/runtime/artifact.h"
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
  // end when it is registered (registerCpuStepCompiler); a step whose
  // operator it cannot compile keeps its reference kernel, with the reason in
  // the layer's decision. Where the code goes follows llvm_library_cpu.
  bool llvm_cpu_fallback = true;

  // ---- target "cuda" (available when the build found the CUDA toolkit)
  CudaCodegenOptions cuda;

  // ---- target "llvm" (available once the CPU back end is registered), and
  // the CPU steps of target "vdla"
  // Empty: compile in process with the JIT (CompileReport::kernels runs the
  // artifact). "host", "armv7" or "aarch64": compile ahead of time into a
  // shared library inside the artifact, which can be saved and run by the
  // runtime alone on that CPU.
  std::string llvm_library_cpu;
};

struct CompileReport {
  PassReport passes;
  double pipeline_seconds = 0;
  double lowering_seconds = 0;
  // Target "vdla": whether the graph was quantised here, and what the back
  // end decided for every node.
  bool quantized = false;
  size_t calibration_samples = 0;
  double quantize_seconds = 0;
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

// A back end that lives in its own library (the CPU back end links LLVM,
// which the compiler core does not) lowers the optimised graph for its
// target once registered; registration makes the target available.
using TargetLowering = std::function<rt::Artifact(const ir::Graph&, const CompileOptions&, CompileReport&)>;
void registerTargetLowering(const std::string& target, TargetLowering lowering);

// Target "vdla": replaces the reference kernels of an accelerator artifact's
// CPU steps by generated code (the CPU back end registers one). It receives
// the graph the artifact was lowered from, whose nodes name the steps.
using CpuStepCompiler = std::function<void(const ir::Graph&, rt::Artifact&, const CompileOptions&, CompileReport&)>;
void registerCpuStepCompiler(CpuStepCompiler compiler);

// True when the graph already holds integer accelerator operators (vdla.QConv)
// and no fp32 convolution or dense layer is left to quantise.
bool isQuantizedForAccelerator(const ir::Graph& graph);

// Every target name the compiler knows, and whether this build can compile for it.
std::vector<std::string> compileTargets();
bool isTargetAvailable(const std::string& target);

// Optimises `graph` in place and lowers it. Throws std::runtime_error (a
// PassError from the pipeline) with a message naming the target, pass or node.
rt::Artifact compileGraph(ir::Graph& graph, const CompileOptions& options, CompileReport* report = nullptr);

// Lowering alone: a typed, verified graph to an execution plan for `target`,
// stamped with the hardware config. Only values the plan reads are kept.
rt::Artifact lowerToArtifact(const ir::Graph& graph, const std::string& target, const std::string& hw_config_name,
                             uint64_t hw_config_hash);

}  // namespace vdla
