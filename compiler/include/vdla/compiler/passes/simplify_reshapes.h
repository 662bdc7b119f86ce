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

// Only the first rule, over chains: a shape-only operator whose output has
// the shape and type of its chain's origin is removed (its readers read the
// origin), and chain links nothing reads any more with it. The other
// operators keep their names and forms. For graphs rewritten after the
// standard pipeline (the quantiser's Flatten, then a Reshape back to 4-D
// for a dense layer's 1x1 convolution).
bool foldCancellingReshapes(ir::Graph& graph);

}  // namespace vdla::passes
