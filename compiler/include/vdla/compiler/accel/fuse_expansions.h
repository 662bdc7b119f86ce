// 1x1 expansions fused into the depthwise layers they feed (one program that
// keeps the expanded tensor on chip: expanded_depthwise.h).
//
// The fused node is the depthwise vdla.QConv with the expansion's weights
// and requantisation vectors as inputs 7-10 and its attributes under the
// prefix "expand_" (expand_name: the expansion node's name); its input is
// the expansion's. Only the accelerator runs such a node: a pair is fused
// where the config has STORE INP, both layers have the fused form, its
// program fits and the cost model says it is faster than the two apart.
// The result is the same bit for bit either way.
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/accel/lower.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

struct ExpansionFusion {
  std::string expansion, depthwise;  // the nodes' names (the fused node keeps the depthwise layer's)
  double separate_cycles = 0;        // both layers by the cost model
  double fused_cycles = 0;           // the fused program
};

// Fuses every pair it can and should; returns what it fused. Leaves the
// graph alone where options.fuse_expansions is off. Decided with latency
// hiding on in either mode, so that both modes compile the same layers.
std::vector<ExpansionFusion> fuseExpansionsIntoDepthwise(ir::Graph& graph, const hw::HwConfig& cfg,
                                                         const AccelOptions& options);

}  // namespace vdla::accel
