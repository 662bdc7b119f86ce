// The compile driver: optimises a graph with the standard pipeline and lowers
// it to an artifact for a target. Lowering for target "ref" is one step per
// node, running the node's reference kernel ("ref.Conv") with the node's
// attributes; the other targets join with their backends.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vdla/compiler/accel/lower.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/quant/quantize.h"
#include "vdla/runtime/artifact.h"

namespace vdla {

struct CompileOptions {
  std::string target = "ref";
  // A built-in hardware config name or a JSON file; its name and hash are
  // stamped into the artifact (and, for target vdla, bound the code generator).
  std::string hw_config = "pynq";
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
  std::vector<accel::LayerDecision> layers;
};

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
