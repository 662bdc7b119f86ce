// Random shapes through the windowed and tiled kernels (convolution with
// groups, strides, dilation and padding, in float and in integers; MatMul and
// Gemm; pooling) on the
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

rt::TensorType typed(rt::DType t, rt::Shape s) { return rt::TensorType{t, std::move(s), rt::Layout::RowMajor}; }

// QLinearConv (u8 or i8 activations, per-channel weight scales and zero
// points) and vdla.QConv (both requantisation forms, residual, padding value)
// on random geometry: bit-exact with the reference kernels.
TEST(CudaEmulationRandom, IntegerConvolutions) {
  std::mt19937 rng = seeded(17);
  ir::Graph g;
  g.name = "random_integer_convs";
  for (int n = 0; n < 12;) {
    const int64_t batch = pick(rng, 1, 2), groups = pick(rng, 1, 3), cg = pick(rng, 1, 5), mg = pick(rng, 1, 12);
    const int64_t h = pick(rng, 1, 12), w = pick(rng, 1, 12), kh = pick(rng, 1, 3), kw = pick(rng, 1, 3);
    const int64_t sh = pick(rng, 1, 2), sw = pick(rng, 1, 2), dh = pick(rng, 1, 2), dw = pick(rng, 1, 2);
    const Ints pads = {pick(rng, 0, kh - 1), pick(rng, 0, kw - 1), pick(rng, 0, kh - 1), pick(rng, 0, kw - 1)};
    if (h + pads[0] + pads[2] < dh * (kh - 1) + 1 || w + pads[1] + pads[3] < dw * (kw - 1) + 1) continue;
    const std::string id = std::to_string(n++);
    const int64_t m = groups * mg;
    rt::AttributeMap a;
    a.set("group", groups);
    a.set("strides", Ints{sh, sw});
    a.set("dilations", Ints{dh, dw});
    a.set("pads", pads);
    if (n % 2) {
      const rt::DType t = pick(rng, 0, 1) ? rt::DType::U8 : rt::DType::I8;
      std::vector<float> ws(static_cast<size_t>(m));
      for (float& v : ws) v = 0.001f + 0.0001f * static_cast<float>(pick(rng, 0, 50));
      auto zero_point = [&](const std::string& name, rt::DType type, int64_t count) {
        rt::Tensor z(type, count == 1 ? rt::Shape{} : rt::Shape{count});
        for (int64_t i = 0; i < count; ++i) {
          if (type == rt::DType::U8)
            z.data<uint8_t>()[i] = static_cast<uint8_t>(pick(rng, 100, 150));
          else
            z.data<int8_t>()[i] = static_cast<int8_t>(pick(rng, -20, 20));
        }
        return g.addConstant(name + id, z);
      };
      std::vector<ir::Value*> ins = {g.addInput("x" + id, typed(t, {batch, groups * cg, h, w})),
                                     g.addConstant("xs" + id, rt::Tensor::fromVector<float>({}, {0.02f})),
                                     zero_point("xz", t, 1),
                                     g.addInput("w" + id, typed(rt::DType::I8, {m, cg, kh, kw})),
                                     g.addConstant("ws" + id, rt::Tensor::fromVector<float>({m}, ws)),
                                     zero_point("wz", rt::DType::I8, m),
                                     g.addConstant("ys" + id, rt::Tensor::fromVector<float>({}, {0.05f})),
                                     zero_point("yz", t, 1)};
      if (pick(rng, 0, 1)) ins.push_back(g.addInput("b" + id, typed(rt::DType::I32, {m})));
      g.addOutput(g.addNode("QLinearConv", ins, 1, a, "qlinearconv" + id)->outputs()[0]);
    } else {
      const bool wide = pick(rng, 0, 1), residual = pick(rng, 0, 1);
      // Shifts that keep most outputs inside the clip range (sums of up to 45
      // int8 products are tens of thousands), so the comparison sees values,
      // not only saturation.
      a.set("shift1", wide ? pick(rng, 0, 4) : pick(rng, 6, 10));
      a.set("shift2", wide ? pick(rng, 20, 26) : pick(rng, 6, 10));
      a.set("clip_lo", pick(rng, -128, -1));
      a.set("clip_hi", pick(rng, 0, 127));
      a.set("x_zero_point", pick(rng, -10, 10));
      a.set("wide_product", int64_t{wide});
      const int64_t oh = (h + pads[0] + pads[2] - dh * (kh - 1) - 1) / sh + 1;
      const int64_t ow = (w + pads[1] + pads[3] - dw * (kw - 1) - 1) / sw + 1;
      // The weights and per-channel vectors are constants, as the operator requires.
      auto constant = [&](const std::string& name, rt::DType type, rt::Shape shape, int64_t lo, int64_t hi) {
        rt::Tensor t(type, std::move(shape));
        for (int64_t i = 0; i < t.numElements(); ++i) {
          if (type == rt::DType::I8)
            t.data<int8_t>()[i] = static_cast<int8_t>(pick(rng, lo, hi));
          else
            t.data<int32_t>()[i] = static_cast<int32_t>(pick(rng, lo, hi));
        }
        return g.addConstant(name + id, t);
      };
      std::vector<ir::Value*> ins = {g.addInput("x" + id, typed(rt::DType::I8, {batch, groups * cg, h, w})),
                                     constant("w", rt::DType::I8, {m, cg, kh, kw}, -128, 127),
                                     constant("bias1_", rt::DType::I32, {m}, -5000, 5000),
                                     constant("mult", rt::DType::I32, {m}, wide ? -40000 : -64, wide ? 40000 : 64),
                                     constant("bias2_", rt::DType::I32, {m}, wide ? 0 : -2000, wide ? 0 : 2000)};
      if (residual) {
        ins.push_back(g.addInput("r" + id, typed(rt::DType::I8, {batch, m, oh, ow})));
        ins.push_back(constant("rm", rt::DType::I32, {m}, -64, 64));
      }
      g.addOutput(g.addNode("QConv", ins, 1, a, "qconv" + id, "vdla")->outputs()[0]);
    }
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
