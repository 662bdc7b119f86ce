// Rewrites the other spellings of global average pooling into GlobalAveragePool,
// the form the backends implement:
//  * ReduceMean over every spatial axis (2 .. rank-1) of an NC... tensor:
//    keepdims=1 gives GlobalAveragePool, keepdims=0 GlobalAveragePool + Flatten
//    (older torchvision MobileNetV2 exports x.mean([2, 3]));
//  * AveragePool whose window covers the whole unpadded input with one output
//    position (older ResNets' nn.AvgPool2d(7) at 224x224).
// Requires typed values.
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool canonicalizePooling(ir::Graph& graph);

}  // namespace vdla::passes
