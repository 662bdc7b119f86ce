// Batch-normalisation folding (inference): y = (x - mean) / sqrt(var + eps) * gamma + beta.
//  * Conv -> BatchNormalization, the Conv's output read only by the BN: the
//    per-output-channel scale s = gamma / sqrt(var + eps) is folded into the
//    Conv's weights and the shift into its bias (created when absent).
//  * Any other BatchNormalization with constant parameters becomes
//    Mul(x, s) -> Add(., beta - mean * s) with s broadcast over the channel axis
//    (when decompose_standalone), or is left as it is.
// Requires typed values (run shape inference first).
#pragma once

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

struct BatchNormFoldingOptions {
  bool decompose_standalone = true;
};

bool foldBatchNorms(ir::Graph& graph, const BatchNormFoldingOptions& options = {});

}  // namespace vdla::passes
