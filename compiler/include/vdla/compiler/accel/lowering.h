// The accelerator lowering (target "vdla") in its phases, each a target stage
// of its own (vdla/compiler/stages.h), with the per-layer plan they pass on:
//
//   partitionForAccelerator  where each node runs; the form and tiling of
//                            every convolution the accelerator takes, the
//                            reason for every one it does not
//   planActivationArena      which activations stay on the device, and where
//                            every packed tensor lives in the activation arena
//   generateAccelArtifact    every offloaded layer's program at its place in
//                            the arena, and the artifact's steps
//   checkArtifactTokens      the dependency-token proof (token_check.h) of
//                            every program in the artifact's device module
//
// lowerForAccelerator (lower.h) runs them in this order. Each phase has a
// printer and a verifier of what it added, which the stages run under
// --print-after-all and after the stage.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "vdla/compiler/accel/add_layer.h"
#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/global_pool_layer.h"
#include "vdla/compiler/accel/layer_form.h"
#include "vdla/compiler/accel/lower.h"
#include "vdla/compiler/accel/pool_layer.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/accel/packed_layout.h"
#include "vdla/runtime/artifact.h"

namespace vdla::accel {

// A packed tensor's place in the activation arena, live from step `first` to
// step `last` (inclusive). Kept so that the arena can be checked and printed.
struct ArenaBuffer {
  size_t step = 0;  // the layer that allocated it
  char role = 'y';  // 'x' input, 'r' residual, 'y' output
  uint64_t offset = 0, bytes = 0;
  int64_t first = 0, last = 0;
};

// An offloaded layer on its way to a program: a convolution, a max pooling
// (pool_layer.h), a quantised addition (add_layer.h) or global average
// pooling (global_pool_layer.h).
struct Offload {
  LayerForm form;                              // a convolution: the layer the program runs (direct or im2col)
  std::optional<PoolLayer> pool;               // set for a max pooling (then `form` is unused)
  std::optional<AddLayer> add;                 // set for an addition: A is the input, B the residual
  std::optional<GlobalPoolLayer> global_pool;  // set for a global average pooling
  // Set by planActivationArena: whether the input and the residual are read
  // where an offloaded layer wrote them, whether the output must go to the
  // host, and the three tensors' places in the arena.
  bool x_resident = false, r_resident = false, y_to_host = false;
  ArenaPlacement placement;

  bool isConv() const { return !pool && !add && !global_pool; }
  bool hasResidual() const { return add || (isConv() && form.layer.residual); }
  // The node's input that the program reads as its residual (hasResidual()).
  size_t residualInput() const { return add ? 3 : 5; }
  // The host leaves the input as it is (no padding, no im2col on the way).
  bool hostLeavesInput() const { return !isConv() || form.layer.host.identity(); }
  // The packed layouts of the input as the program reads it and of the
  // output (and residual) as it writes them.
  rt::accel::PackedGeometry inputGeometry(const hw::HwConfig& cfg) const;
  rt::accel::PackedGeometry outputGeometry(const hw::HwConfig& cfg) const;
};

// One program's token proof.
struct ProgramTokens {
  std::string name;  // the program's name: the layer it runs
  TokenCheckResult result;
};

// The plan of one graph's lowering, one entry per node in graph order.
struct AccelLowering {
  std::vector<const ir::Node*> nodes;
  std::vector<LayerDecision> decisions;          // program/instructions set by code generation
  std::vector<std::optional<Offload>> offloads;  // set for the nodes the accelerator runs
  bool arena_planned = false;
  std::vector<ArenaBuffer> buffers;  // in allocation order
  uint64_t arena_bytes = 0;
  std::vector<ProgramTokens> tokens;  // one per program of the device module
};

// Phase 1. The graph must be quantised and typed.
AccelLowering partitionForAccelerator(const ir::Graph& graph, const hw::HwConfig& cfg, const AccelOptions& options);

// Phases 2 and 3: residency and the arena, into `lowering` (partitioned).
void planActivationArena(const ir::Graph& graph, const hw::HwConfig& cfg, AccelLowering& lowering);

// Phase 4: the artifact, from a planned lowering of the same graph. Sets each
// offloaded decision's program and instruction count. Throws naming the node
// on a layer whose chosen form does not lower (a compiler bug).
rt::Artifact generateAccelArtifact(const ir::Graph& graph, const hw::HwConfig& cfg, const AccelOptions& options,
                                   AccelLowering& lowering);

// Decodes the artifact's device module and proves every program free of
// deadlocks and balanced in tokens. Throws std::runtime_error naming the
// program by index and name (the layer) on the first that is not.
std::vector<ProgramTokens> checkArtifactTokens(const rt::Artifact& artifact, const hw::HwConfig& cfg);

// What each phase added, for --print-after-all: a line per node (partition),
// a line per offloaded layer and the arena size (arena), a line per chained
// layer (code generation), a line per program (tokens).
void printPartition(std::ostream& out, const AccelLowering& lowering);
void printArena(std::ostream& out, const AccelLowering& lowering);
void printChains(std::ostream& out, const rt::Artifact& artifact, const AccelLowering& lowering);
void printProgramTokens(std::ostream& out, const std::vector<ProgramTokens>& tokens);

// Checks of what each phase added; throw std::runtime_error naming the node.
// Partition: a decision per node of `graph`, and every offloaded node a
// vdla.QConv with a plan the cost model says fits. Arena: every place inside
// the arena and aligned, no two places overlapping while both are live, every
// resident input read where its producer wrote it.
void verifyPartition(const ir::Graph& graph, const AccelLowering& lowering);
void verifyArena(const AccelLowering& lowering);

}  // namespace vdla::accel
