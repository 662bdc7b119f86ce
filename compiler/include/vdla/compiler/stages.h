// The target stages that live in the compiler core (vdla_compiler); the back
// ends in their own libraries add theirs (vdla/compiler/llvm/llvm_stages.h,
// and the CUDA one in vdla_targets). Which target runs which, in what order,
// is the target table's business (vdla/compiler/target_registry.h).
#pragma once

#include <cstdint>
#include <string>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/target.h"
#include "vdla/runtime/artifact.h"

namespace vdla::stages {

// "qlinear-to-qconv" (graph): a model quantised elsewhere (QLinearConv,
// QLinearMatMul, ...) keeps its own scales; its integer convolutions and
// dense layers become vdla.QConv (quant/qlinear_to_qconv.h). Nothing to do
// for a graph without such operators.
TargetStage qlinearToQConv();

// "quantize" (graph): calibrates an fp32 graph on the calibration samples
// (seeded synthetic ones when none are given) and rewrites it into vdla.QConv
// (quant/quantize.h). Nothing to do for a graph that is quantised already.
TargetStage quantize();

// "accel-lower" (artifact): partitions the quantised graph between the
// accelerator and the CPU, tiles every offloaded layer by the cost model,
// generates its program and checks its dependency tokens (accel/lower.h).
TargetStage accelLower();

// "ref-lower" (artifact): one step per node running its reference kernel.
TargetStage refLower();

}  // namespace vdla::stages

namespace vdla {

// True when the graph already holds integer accelerator operators (vdla.QConv)
// and no fp32 convolution or dense layer is left to quantise.
bool isQuantizedForAccelerator(const ir::Graph& graph);

// The reference plan (stage "ref-lower"): a typed, verified graph to one step
// per node, stamped with `target` and the hardware config. Only values the
// plan reads are kept.
rt::Artifact lowerToArtifact(const ir::Graph& graph, const std::string& target, const std::string& hw_config_name,
                             uint64_t hw_config_hash);

}  // namespace vdla
