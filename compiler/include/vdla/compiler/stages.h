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
// Float: onnxruntime's requantisation (CPU targets). AsAccelerator: the
// same where the target config's accelerator has the ALU op FREQ
// (extension float_requant), else its integer form.
enum class QLinearRequant { Float, AsAccelerator };
TargetStage qlinearToQConv(QLinearRequant requant);

// "quantize" (graph): calibrates an fp32 graph on the calibration samples
// (seeded synthetic ones when none are given) and rewrites it into vdla.QConv
// (quant/quantize.h). Nothing to do for a graph that is quantised already.
TargetStage quantize();

// "fold-reshapes" (graph): shape-only operators that undo each other (a
// dense layer's input flattened and made 4-D again) are removed, so that the
// layers around them meet on the device (passes::foldCancellingReshapes).
TargetStage foldReshapes();

// "accel-fuse-additions" (graph): each quantised addition whose operand is a
// convolution output nothing else reads becomes that convolution's post_add
// where the cost model says the fused layer is faster (accel/fuse_additions.h).
TargetStage accelFuseAdditions();

// "accel-fuse-expansions" (graph): each 1x1 expansion whose output only a
// depthwise layer reads joins that layer as one node, one program that keeps
// the expanded tensor on chip (STORE INP), where the cost model says it is
// faster (accel/fuse_expansions.h).
TargetStage accelFuseExpansions();

// The accelerator lowering (accel/lowering.h), in four stages that hand on
// the vdla target's plan (accel::AccelLowering in TargetState::plan):
// "accel-partition" (plan): where each node runs; the form and tiling of
// every offloaded convolution, the reason for every one left on the CPU.
TargetStage accelPartition();
// "accel-arena" (plan): which activations stay on the device, and the place
// of every packed tensor in the activation arena.
TargetStage accelArena();
// "accel-codegen" (artifact): the programs and the artifact's steps; the
// plan's decisions become the report's layers.
TargetStage accelCodegen();
// "accel-token-check" (artifact): the static token proof of every program in
// the artifact's device module; a failure names the program and its layer.
TargetStage accelTokenCheck();

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
