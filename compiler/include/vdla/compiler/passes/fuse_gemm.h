// Builds Gemm from what exporters emit for nn.Linear on other paths:
//  * MatMul(A[M,K], B[K,N] constant) -> Gemm(A, B);
//  * Gemm without bias -> Add(constant c broadcastable to [M,N] along rows, i.e.
//    of shape [N], [1,N] or scalar) -> Gemm(A, B, c) (c scaled by 1/beta);
//  * Gemm with a constant bias -> Add(constant c) -> Gemm with the biases summed.
// The Gemm's (or MatMul's) output must be read only by the Add. Requires typed values.
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool fuseGemmBias(ir::Graph& graph);

}  // namespace vdla::passes
