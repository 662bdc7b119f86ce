// Partitioning and lowering of a quantised graph for the accelerator (target
// "vdla"): every vdla.QConv the accelerator can run becomes a "vdla.conv" step
// with its generated program; everything else stays a CPU step (reference
// kernels). The programs, the constant image and the activation arena size go
// into the artifact's vdla sections.
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/accel/tiling.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/artifact.h"

namespace vdla::accel {

struct AccelOptions {
  bool latency_hiding = true;
  // Let the cost model run a convolution with few input channels as a 1x1
  // layer over im2col'd input packed by the host.
  bool allow_im2col = true;
};

// What the back end decided for one node (for reports and `vdla profile`).
struct LayerDecision {
  std::string name;
  std::string op;
  bool offloaded = false;
  std::string reason;  // why not, when !offloaded
  std::string input_shape, output_shape;
  int64_t macs = 0;
  bool im2col = false;
  TilePlan plan;
  CostEstimate estimate;
  size_t instructions = 0;
  size_t program = 0;  // index into the module's programs
};

rt::Artifact lowerForAccelerator(const ir::Graph& graph, const hw::HwConfig& cfg, const AccelOptions& options,
                                 std::vector<LayerDecision>* decisions = nullptr);

}  // namespace vdla::accel
