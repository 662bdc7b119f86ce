// Canonicalises the shape-only operators (Reshape, Flatten, Squeeze, Unsqueeze)
// on static shapes:
//  * one whose output shape equals its input shape is removed;
//  * a chain of them collapses into the last one applied to the first input;
//  * one that produces [prod(in[:k]), prod(in[k:])] becomes Flatten{axis=k},
//    the form Gemm's input takes in the clean graph (PyTorch's
//    x.view(x.size(0), -1) and x.reshape(N, -1) become Flatten{axis=1}).
// Requires typed values.
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool simplifyReshapes(ir::Graph& graph);

}  // namespace vdla::passes
