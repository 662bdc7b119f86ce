// Shared by the pass tests: random inputs, output comparison, op histograms and
// the "the pass never changes results" check.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/reference_executor.h"

namespace vdla::testing {

inline rt::TensorType f32(rt::Shape shape) { return {rt::DType::F32, std::move(shape), rt::Layout::RowMajor}; }

// Uniform values in [lo, hi) (test data only: the sequence need not be portable).
inline rt::Tensor randomTensor(rt::Shape shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  rt::Tensor t(rt::DType::F32, std::move(shape));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numElements(); ++i) p[i] = dist(rng);
  return t;
}

inline std::vector<rt::Tensor> randomInputs(const ir::Graph& g, uint64_t seed) {
  std::vector<rt::Tensor> inputs;
  for (const ir::Value* v : g.inputs()) inputs.push_back(randomTensor(v->type().shape, seed++));
  return inputs;
}

// max |a - b| / max(|b|), the relative error the pass tests bound.
inline double relativeError(const rt::Tensor& a, const rt::Tensor& b) {
  EXPECT_EQ(a.type(), b.type());
  if (a.type() != b.type()) return INFINITY;
  double max_diff = 0, max_ref = 0;
  for (int64_t i = 0; i < a.numElements(); ++i) {
    max_diff = std::max(max_diff, std::abs(a.getAsDouble(i) - b.getAsDouble(i)));
    max_ref = std::max(max_ref, std::abs(b.getAsDouble(i)));
  }
  return max_diff / std::max(max_ref, 1e-12);
}

inline std::map<std::string, int> opHistogram(const ir::Graph& g) {
  std::map<std::string, int> h;
  for (const ir::Node* n : g.nodes()) ++h[n->qualifiedOp()];
  return h;
}

inline int countOp(const ir::Graph& g, const std::string& op) {
  int n = 0;
  for (const ir::Node* node : g.nodes()) n += node->qualifiedOp() == op;
  return n;
}

// Runs `pass` on g and checks that the reference executor gives the same outputs
// before and after on `trials` random inputs, and that the graph still verifies.
// Returns the pass's result.
inline bool expectPreservesSemantics(ir::Graph& g, const std::function<bool(ir::Graph&)>& pass, int trials = 2,
                                     double tolerance = 1e-4) {
  passes::inferShapes(g);
  ir::verifyGraphOrThrow(g);
  std::vector<std::vector<rt::Tensor>> inputs, before;
  for (int t = 0; t < trials; ++t) {
    inputs.push_back(randomInputs(g, 1000 + 17 * static_cast<uint64_t>(t)));
    before.push_back(runReference(g, inputs.back()));
  }
  bool changed = pass(g);
  EXPECT_TRUE(ir::verifyGraph(g).empty()) << ir::verifyGraph(g).front();
  for (int t = 0; t < trials; ++t) {
    std::vector<rt::Tensor> after = runReference(g, inputs[t]);
    EXPECT_EQ(after.size(), before[t].size());
    for (size_t i = 0; i < after.size() && i < before[t].size(); ++i)
      EXPECT_LE(relativeError(after[i], before[t][i]), tolerance) << "output " << i << " trial " << t;
  }
  return changed;
}

}  // namespace vdla::testing
