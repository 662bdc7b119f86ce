// Constant folding: a node whose inputs are all constants is evaluated once,
// with the reference kernels, and its outputs become constants. Shape reads the
// static type of its input, so the Shape/Gather/Unsqueeze/Concat/Reshape chains
// that PyTorch exports for `x.view(x.size(0), -1)` fold away entirely.
//
// Types are inferred node by node as the pass walks the graph, so a Reshape
// whose target shape is computed by such a chain gets its type only after the
// chain has folded: the pass doubles as shape inference for graphs that plain
// inferShapes cannot type yet.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "vdla/compiler/ir/graph.h"

namespace vdla::passes {

struct ConstantFoldingOptions {
  // A folded output larger than this is kept as a computation unless every
  // constant it reads dies with the fold (so constants never grow by duplication).
  size_t max_folded_bytes = size_t{1} << 20;
  // Operators never folded. DequantizeLinear keeps quantised weights visible
  // to the quantisation passes.
  std::set<std::string> skip_ops = {"DequantizeLinear",  "RandomNormal", "RandomUniform", "RandomNormalLike",
                                    "RandomUniformLike", "Multinomial",  "Bernoulli"};
};

// Returns whether any node was folded. Throws (naming the node) when a node's
// types cannot be inferred or its kernel rejects the constant inputs.
bool foldConstants(ir::Graph& graph, const ConstantFoldingOptions& options = {});

}  // namespace vdla::passes
