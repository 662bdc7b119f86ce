// Helpers of the CPU back end tests: small graphs, seeded random tensors and
// the comparison of generated code against the reference executor.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/llvm/cpu_backend.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/runtime/executor.h"

namespace vdla::cpu::test {

inline rt::Tensor randomTensor(const rt::Shape& shape, std::mt19937& rng, float lo = -1, float hi = 1) {
  rt::Tensor t(rt::DType::F32, shape);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

// Inputs that probe quantisation with `scale` over [-140, 140] steps: values
// on and up to three ulps either side of every half-step, exact steps, NaN,
// infinities, a subnormal, -0 and huge values fill the first elements, a
// half-step sits at a few scattered ones, and random values the rest.
inline rt::Tensor nearTieInputs(int64_t n, float scale, std::mt19937& rng) {
  rt::Tensor in = randomTensor({n}, rng, -140 * scale, 140 * scale);
  float* v = in.data<float>();
  int64_t i = 0;
  for (int k = -140; k <= 140 && i + 8 < n; ++k) {
    const float tie = (static_cast<float>(k) + 0.5f) * scale;
    float up = tie, down = tie;
    v[i++] = tie;
    v[i++] = static_cast<float>(k) * scale;
    for (int ulp = 0; ulp < 3; ++ulp) {
      up = std::nextafter(up, INFINITY);
      down = std::nextafter(down, -INFINITY);
      v[i++] = up;
      v[i++] = down;
    }
  }
  for (float special : {NAN, INFINITY, -INFINITY, 1e-42f, -0.0f, 3e38f, -3e38f, 1e7f})
    if (i < n) v[i++] = special;
  for (int64_t at : {n / 7, n / 2 + 300, n - 3})
    if (at >= i) v[at] = 7.5f * scale;
  return in;
}

// Tolerance 1e-4 relative to the element, or to the output's RMS for
// elements near zero (where long sums cancel and a relative bound says nothing).
inline void expectClose(const rt::Tensor& got, const rt::Tensor& want, const std::string& what, double tol = 1e-4) {
  ASSERT_EQ(got.type(), want.type()) << what;
  const float* g = got.data<float>();
  const float* w = want.data<float>();
  double sq = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) sq += double(w[i]) * w[i];
  const double rms = std::sqrt(sq / std::max<int64_t>(1, want.numElements()));
  int64_t bad = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    const double err = std::fabs(double(g[i]) - w[i]);
    if (!(err <= tol * std::max(std::fabs(double(w[i])), rms))) {
      if (bad++ < 5) ADD_FAILURE() << what << ": element " << i << " is " << g[i] << ", reference " << w[i];
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want.numElements() << " elements differ";
}

// Types the graph, runs it on the reference executor and as JIT-compiled code,
// and compares every output.
inline void expectMatchesReference(ir::Graph& g, const std::vector<rt::Tensor>& inputs, const std::string& what,
                                   const CpuCompileOptions& options = {}) {
  passes::inferShapes(g);
  const std::vector<rt::Tensor> want = runReference(g, inputs);
  JitProgram program = compileJit(g, options);
  rt::Executor executor(program.artifact, *program.kernels);
  const std::vector<rt::Tensor> got = executor.run(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) expectClose(got[i], want[i], what + " output " + std::to_string(i));
}

}  // namespace vdla::cpu::test
