// Quantised additions fused into the convolution that feeds them.
//
// A pre-quantised network (MobileNetV2's QDQ export) writes each residual
// addition as an operator of its own (com.microsoft.QLinearAdd): the
// projection convolution stores its int8 output, and the addition loads it
// back with the block's input, requantises the sum and stores it again. Where
// the addition has an exact integer form (add_layer.h) and its operand is a
// convolution output that nothing else reads, the two become one vdla.QConv
// with post_add (qconv_attributes.h): the other operand is its residual R,
// and the ALU adds it after the convolution's own requantisation, in the
// tile, while the accumulators still hold the output. The pair is fused only
// where the cost model (with the addition's own) says the fused layer is
// faster, or within 2% of the two apart (fuse_additions.cpp says why); the
// result is the same bit for bit either way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vdla/compiler/accel/add_layer.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/lower.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/hw/config.h"

namespace vdla::accel {

struct AdditionFusion {
  std::string conv, add;       // the nodes' names (the fused node keeps the convolution's)
  double separate_cycles = 0;  // both layers by the cost model
  double fused_cycles = 0;     // the fused layer
};

// Fuses every addition it can and should into its convolution; returns what
// it fused. Leaves the graph alone with additions kept on the CPU
// (options.offload_adds off) or fusion off (options.fuse_additions). The cost model is asked with latency hiding on
// in either mode, so that both modes compile the same layers.
std::vector<AdditionFusion> fuseAdditionsIntoConvolutions(ir::Graph& graph, const hw::HwConfig& cfg,
                                                          const AccelOptions& options);

// The convolution that can take `add` (a QLinearAdd) as its post_add through
// the operand in `slot` (0: A, 3: B): it produces that operand, nothing else
// reads it, it has no residual of its own, and the addition has an exact
// integer form whose sums fit the ALU. nullptr when there is none. (A
// convolution in the float form needs a config with FREQ besides.)
ir::Node* fusibleConvolution(const ir::Graph& graph, const ir::Node& add, size_t slot);

// The layer a convolution and an addition's form make fused (`conv_is_a`:
// the convolution's output is the addition's A).
ConvLayer fusedConvLayer(const ConvLayer& conv, const IntegerAddForm& form, bool conv_is_a);

// The cost model's cycles for the two layers apart and for the fused layer
// on the config (in the options' latency-hiding mode), or nullopt where any
// of them has no plan that fits (then they stay apart).
struct FusionCost {
  double separate = 0, fused = 0;
  CostEstimate fused_estimate;  // the fused layer's
};
std::optional<FusionCost> fusionCost(const ConvLayer& conv, const AddLayer& add, bool conv_is_a,
                                     const hw::HwConfig& cfg, const AccelOptions& options);
// Whether the pass fuses at that cost: the fused layer faster, or within 2%
// of the two apart (fuse_additions.cpp says why). The explorer decides the same.
bool fusionPays(const FusionCost& cost);

// The rewrite alone, without the cost model: the convolution (from
// fusibleConvolution) takes the other operand as R and the addition's form
// as its post_add, and its output becomes the addition's (name included);
// the addition is removed. Returns the fused convolution.
ir::Node* fuseAdditionIntoConvolution(ir::Graph& graph, ir::Node* add, size_t slot);

}  // namespace vdla::accel
