// Random shapes through the windowed and tiled kernels (convolution with
// groups, strides, dilation and padding; MatMul and Gemm; pooling) on the
// emulated driver, against the reference executor. The shapes are seeded, so
// a failure repeats (VDLA_TEST_SEED=n explores other shapes); all nodes of a
// family share one graph (one compile).
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "cuda_compare.h"
#include "cuda_op_cases.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/runtime/executor.h"

namespace vdla::cuda::testing {
namespace {

using Ints = std::vector<int64_t>;

rt::TensorType f32(rt::Shape s) { return rt::TensorType{rt::DType::F32, std::move(s), rt::Layout::RowMajor}; }

// The family's seed, offset by VDLA_TEST_SEED when set.
std::mt19937 seeded(unsigned family) {
  const char* env = std::getenv("VDLA_TEST_SEED");
  return std::mt19937(family + (env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) * 1000u : 0u));
}

int64_t pick(std::mt19937& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

// Runs every output of `g` on the emulated driver against the reference.
void expectGraphMatches(ir::Graph& g) {
  passes::inferShapes(g);
  std::vector<rt::Tensor> inputs;
  for (size_t i = 0; i < g.inputs().size(); ++i) inputs.push_back(caseInput(*g.inputs()[i], 101 + i));
  const std::vector<rt::Tensor> want = runReference(g, inputs);
  rt::Executor ex(compileCuda(g, false));
  const std::vector<rt::Tensor> got = ex.run(inputs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(scaledError(got[i], want[i]), 1e-3) << "node " << g.outputs()[i]->name();
}

TEST(CudaEmulationRandom, Convolutions) {
  std::mt19937 rng = seeded(7);
  ir::Graph g;
  g.name = "random_convs";
  for (int n = 0; n < 14;) {
    const int64_t batch = pick(rng, 1, 2), groups = pick(rng, 1, 3), cg = pick(rng, 1, 5), mg = pick(rng, 1, 20);
    const int64_t h = pick(rng, 1, 14), w = pick(rng, 1, 14), kh = pick(rng, 1, 4), kw = pick(rng, 1, 4);
    const int64_t sh = pick(rng, 1, 3), sw = pick(rng, 1, 3), dh = pick(rng, 1, 2), dw = pick(rng, 1, 2);
    const Ints pads = {pick(rng, 0, kh - 1), pick(rng, 0, kw - 1), pick(rng, 0, kh - 1), pick(rng, 0, kw - 1)};
    if (h + pads[0] + pads[2] < dh * (kh - 1) + 1 || w + pads[1] + pads[3] < dw * (kw - 1) + 1) continue;
    const std::string id = std::to_string(n++);
    rt::AttributeMap a;
    a.set("group", groups);
    a.set("strides", Ints{sh, sw});
    a.set("dilations", Ints{dh, dw});
    a.set("pads", pads);
    std::vector<ir::Value*> ins = {g.addInput("x" + id, f32({batch, groups * cg, h, w})),
                                   g.addInput("w" + id, f32({groups * mg, cg, kh, kw}))};
    if (pick(rng, 0, 1)) ins.push_back(g.addInput("b" + id, f32({groups * mg})));
    g.addOutput(g.addNode("Conv", ins, 1, a, "conv" + id)->outputs()[0]);
  }
  expectGraphMatches(g);
}

TEST(CudaEmulationRandom, MatrixProducts) {
  std::mt19937 rng = seeded(11);
  ir::Graph g;
  g.name = "random_matmuls";
  for (int n = 0; n < 10; ++n) {
    const int64_t m = pick(rng, 1, 70), k = pick(rng, 1, 70), cols = pick(rng, 1, 70);
    const std::string id = std::to_string(n);
    if (n % 2) {
      const bool ta = pick(rng, 0, 1), tb = pick(rng, 0, 1);
      rt::AttributeMap a;
      a.set("transA", int64_t{ta});
      a.set("transB", int64_t{tb});
      a.set("alpha", 0.5);
      a.set("beta", 2.0);
      ir::Value* x = g.addInput("a" + id, f32(ta ? rt::Shape{k, m} : rt::Shape{m, k}));
      ir::Value* y = g.addInput("b" + id, f32(tb ? rt::Shape{cols, k} : rt::Shape{k, cols}));
      ir::Value* c = g.addInput("c" + id, f32({cols}));
      g.addOutput(g.addNode("Gemm", {x, y, c}, 1, a, "gemm" + id)->outputs()[0]);
    } else {
      const int64_t batch = pick(rng, 1, 3);
      ir::Value* x = g.addInput("a" + id, f32({batch, m, k}));
      ir::Value* y = g.addInput("b" + id, f32({k, cols}));
      g.addOutput(g.addNode("MatMul", {x, y}, 1, {}, "matmul" + id)->outputs()[0]);
    }
  }
  expectGraphMatches(g);
}

TEST(CudaEmulationRandom, Pooling) {
  std::mt19937 rng = seeded(13);
  ir::Graph g;
  g.name = "random_pools";
  for (int n = 0; n < 12;) {
    const int64_t c = pick(rng, 1, 4), h = pick(rng, 2, 15), w = pick(rng, 2, 15);
    const int64_t kh = pick(rng, 1, 4), kw = pick(rng, 1, 4), s = pick(rng, 1, 3);
    const Ints pads = {pick(rng, 0, kh - 1), pick(rng, 0, kw - 1), pick(rng, 0, kh - 1), pick(rng, 0, kw - 1)};
    if (h + pads[0] + pads[2] < kh || w + pads[1] + pads[3] < kw) continue;
    const std::string id = std::to_string(n++);
    rt::AttributeMap a;
    a.set("kernel_shape", Ints{kh, kw});
    a.set("strides", Ints{s, s});
    a.set("pads", pads);
    a.set("ceil_mode", pick(rng, 0, 1));
    const bool avg = n % 2;
    if (avg) a.set("count_include_pad", pick(rng, 0, 1));
    ir::Value* x = g.addInput("x" + id, f32({2, c, h, w}));
    g.addOutput(g.addNode(avg ? "AveragePool" : "MaxPool", {x}, 1, a, "pool" + id)->outputs()[0]);
  }
  expectGraphMatches(g);
}

}  // namespace
}  // namespace vdla::cuda::testing
