// One-node (and a few two-node) graphs covering every operator and form the
// CUDA backend generates code for. Shared by the codegen tests (no GPU) and
// the GPU tests, which run each case against the reference kernels.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::cuda::testing {

struct OpCase {
  std::string name;
  // A typed graph (inputs are graph inputs; weights and shape operands constants).
  std::function<std::unique_ptr<ir::Graph>()> build;
};

// Every case; the graphs are small (at most a few thousand elements per tensor).
std::vector<OpCase> operatorCases();

// Seeded values in [-2, 2) for a graph input (positive ones for inputs named
// "*pos*", so that Sqrt and Reciprocal stay finite).
rt::Tensor caseInput(const ir::Value& input, uint64_t seed);

}  // namespace vdla::cuda::testing
