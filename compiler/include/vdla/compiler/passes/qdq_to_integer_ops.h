// Rewrites QDQ ("fake-quantised") groups into integer operators, as
// onnxruntime's QDQ transformers do at graph optimisation level 2, so that a
// QDQ model computes what onnxruntime computes: exact int32 accumulation and
// one float requantisation rounded half to even, instead of fp32 arithmetic on
// dequantised values.
//
//   DQ(x), DQ(w)[, DQ(b:i32) | b:f32] -> Conv -> Q   => QLinearConv
//   DQ(a), DQ(b) -> Add -> Q                          => com.microsoft.QLinearAdd
//   DQ(x) -> GlobalAveragePool -> Q                   => com.microsoft.QLinearGlobalAveragePool
//   DQ(a), DQ(b)[, DQ(c:i32) | c:f32] -> Gemm [-> Q]  => com.microsoft.QGemm (quantised output
//                                                       with a Q, float output without)
//   DQ -> Flatten/Reshape/Transpose/Squeeze/Unsqueeze/
//         Expand/Gather/GatherElements/Slice/Tile/
//         MaxPool/ReduceMax/ReduceMin -> Q            => the op on the integers, when the Q and
//                                                       the DQ have the same scale and zero point
//
// onnxruntime's rules, which this pass follows (see the source for details):
//  * every actual input of the target must come from a DequantizeLinear; a DQ
//    read by several nodes is duplicated per reader first (EnsureUniqueDQForNodeUnit),
//    so sharing never blocks a rewrite (the original DQ stays while anything reads it);
//  * the target's only reader must be the QuantizeLinear (Gemm: or no Q at all),
//    and its output must not be a graph output;
//  * activation, output and (for int8 activations) weight types must agree;
//  * an int32 bias DQ is used as is (its scale is not consulted); a constant
//    float bias is first quantised to int32 with scale x_scale * w_scale and
//    round-half-to-even (WeightBiasQuantization);
//  * Gemm with a bias needs beta == 1.
// Scales and zero points must be constants; activations per tensor; weights
// per tensor or per output channel. fp32 graphs (no DequantizeLinear) are
// never touched.
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

bool rewriteQdqToIntegerOps(ir::Graph& graph);

}  // namespace vdla::passes
