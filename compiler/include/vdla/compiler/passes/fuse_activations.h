// Folds an activation into the operator that produces its input, recorded as
// attributes of that operator (the IR's convention for fused operators):
//   Conv -> Relu            => Conv{activation="Relu"}
//   Conv -> Clip(lo, hi)    => Conv{activation="Clip", activation_min=lo, activation_max=hi}
//                              (MobileNetV2's ReLU6 is Clip(0, 6))
//   Add  -> Relu            => Add{activation="Relu"}   (ResNet's residual join)
//   Gemm -> Relu / Clip     => Gemm{activation=...}
// Clip bounds must be constant (inputs, or min/max attributes of old opsets).
// The producer's output must be read only by the activation and the producer
// must not carry an activation already.
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool fuseActivations(ir::Graph& graph);

}  // namespace vdla::passes
