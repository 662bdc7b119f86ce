// rewriteQdqToIntegerOps on hand-built QDQ graphs: the rewritten graph's
// outputs equal an integer reference written out here (quantise, int32
// accumulate, one float requantisation rounded half to even, as onnxruntime's
// integer kernels do), fp32 graphs are untouched and groups outside the
// pattern stay as they are.
#include "vdla/compiler/passes/qdq_to_integer_ops.h"

#include <algorithm>
#include <cmath>

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::DType;
using rt::Tensor;
using testing::countOp;
using testing::f32;
using testing::opHistogram;
using testing::randomTensor;

// ---- the integer reference ----

int32_t quantize(float v, float scale, int32_t zp, int32_t lo = 0, int32_t hi = 255) {
  const float r = std::nearbyint(v / scale) + static_cast<float>(zp);
  return static_cast<int32_t>(std::min(std::max(r, static_cast<float>(lo)), static_cast<float>(hi)));
}
int32_t requantize(int32_t acc, float scale, int32_t zp, int32_t lo = 0, int32_t hi = 255) {
  const float r = std::nearbyint(static_cast<float>(acc) * scale) + static_cast<float>(zp);
  return static_cast<int32_t>(std::min(std::max(r, static_cast<float>(lo)), static_cast<float>(hi)));
}
float dequantize(int32_t q, float scale, int32_t zp) { return static_cast<float>(q - zp) * scale; }

// ---- graph building ----

struct Q {
  float scale;
  int32_t zp;
};

ir::Value* quantizeNode(ir::Graph& g, ir::Value* x, Q q, const std::string& name) {
  return g
      .addNode("QuantizeLinear",
               {x, g.addConstant(name + ".s", Tensor::scalar<float>(q.scale)),
                g.addConstant(name + ".z", Tensor::scalar<uint8_t>(static_cast<uint8_t>(q.zp)))},
               1, {}, name)
      ->output();
}
ir::Value* dequantizeNode(ir::Graph& g, ir::Value* xq, Q q, const std::string& name) {
  return g
      .addNode("DequantizeLinear",
               {xq, g.addConstant(name + ".s", Tensor::scalar<float>(q.scale)),
                g.addConstant(name + ".z", Tensor::scalar<uint8_t>(static_cast<uint8_t>(q.zp)))},
               1, {}, name)
      ->output();
}
// Q then DQ with the same parameters: a fake-quantised activation.
ir::Value* qdq(ir::Graph& g, ir::Value* x, Q q, const std::string& name) {
  return dequantizeNode(g, quantizeNode(g, x, q, name + ".q"), q, name + ".dq");
}

// Per-channel int8 weights [M][C][kh][kw] (or [N][K]) and their DQ (axis 0).
struct Weights {
  std::vector<int8_t> q;
  std::vector<float> scale;
};
Weights makeWeights(int64_t m, int64_t per_channel, uint64_t seed) {
  Weights w;
  uint64_t s = seed;
  for (int64_t i = 0; i < m * per_channel; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    w.q.push_back(static_cast<int8_t>(static_cast<int64_t>(s >> 33) % 255 - 127));
  }
  for (int64_t c = 0; c < m; ++c) w.scale.push_back(0.002f + 0.0007f * static_cast<float>(c));
  return w;
}
ir::Value* weightDq(ir::Graph& g, const Weights& w, rt::Shape shape, const std::string& name) {
  rt::AttributeMap axis;
  axis.set("axis", int64_t{0});
  const int64_t m = shape[0];
  return g
      .addNode("DequantizeLinear",
               {g.addConstant(name + ".q", Tensor::fromVector<int8_t>(shape, w.q)),
                g.addConstant(name + ".s", Tensor::fromVector<float>({m}, w.scale)),
                g.addConstant(name + ".z", Tensor::fromVector<int8_t>({m}, std::vector<int8_t>(m, 0)))},
               1, axis, name)
      ->output();
}
// int32 bias with scale x_scale * w_scale[c] (as quantisers write it).
ir::Value* biasDq(ir::Graph& g, const std::vector<int32_t>& b, float x_scale, const Weights& w,
                  const std::string& name) {
  rt::AttributeMap axis;
  axis.set("axis", int64_t{0});
  const int64_t m = static_cast<int64_t>(b.size());
  std::vector<float> scale;
  for (float s : w.scale) scale.push_back(x_scale * s);
  return g
      .addNode("DequantizeLinear",
               {g.addConstant(name + ".q", Tensor::fromVector<int32_t>({m}, b)),
                g.addConstant(name + ".s", Tensor::fromVector<float>({m}, scale)),
                g.addConstant(name + ".z", Tensor::fromVector<int32_t>({m}, std::vector<int32_t>(m, 0)))},
               1, axis, name)
      ->output();
}

rt::AttributeMap conv3x3() {
  rt::AttributeMap a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  return a;
}

constexpr int64_t C = 3, M = 4, H = 5, W = 6;
const Q kX{0.02f, 114}, kY{0.05f, 120};

// x -> Q/DQ -> Conv(DQ w, bias) -> Q/DQ -> y, with the int32 bias as a DQ or
// as a float constant.
ir::Graph* convGraph(ir::Graph& g, const Weights& w, const std::vector<int32_t>& bias_q, bool float_bias) {
  ir::Value* x = g.addInput("x", f32({1, C, H, W}));
  ir::Value* b;
  if (float_bias) {
    std::vector<float> bf;
    for (int64_t m = 0; m < M; ++m) bf.push_back(static_cast<float>(bias_q[m]) * (kX.scale * w.scale[m]) + 1e-7f);
    b = g.addConstant("b", Tensor::fromVector<float>({M}, bf));
  } else {
    b = biasDq(g, bias_q, kX.scale, w, "b");
  }
  ir::Value* conv =
      g.addNode("Conv", {qdq(g, x, kX, "x"), weightDq(g, w, {M, C, 3, 3}, "w"), b}, 1, conv3x3(), "conv")->output();
  g.addOutput(qdq(g, conv, kY, "y"));
  passes::inferShapes(g);
  return &g;
}

// The integer reference of convGraph.
std::vector<float> convReference(const Tensor& x, const Weights& w, const std::vector<int32_t>& bias) {
  std::vector<int32_t> xq(static_cast<size_t>(C * H * W));
  for (size_t i = 0; i < xq.size(); ++i) xq[i] = quantize(x.data<float>()[i], kX.scale, kX.zp) - kX.zp;
  std::vector<float> y;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t oh = 0; oh < H; ++oh)
      for (int64_t ow = 0; ow < W; ++ow) {
        int32_t acc = bias[m];
        for (int64_t c = 0; c < C; ++c)
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              const int64_t ih = oh + kh - 1, iw = ow + kw - 1;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              acc += xq[(c * H + ih) * W + iw] * w.q[((m * C + c) * 3 + kh) * 3 + kw];
            }
        const float scale = kX.scale * w.scale[m] / kY.scale;
        y.push_back(dequantize(requantize(acc, scale, kY.zp), kY.scale, kY.zp));
      }
  return y;
}

void expectEqualValues(const Tensor& got, const std::vector<float>& want) {
  ASSERT_EQ(got.numElements(), static_cast<int64_t>(want.size()));
  int mismatches = 0;
  for (size_t i = 0; i < want.size(); ++i) mismatches += got.data<float>()[i] != want[i];
  EXPECT_EQ(mismatches, 0);
}

TEST(QdqToIntegerOps, ConvWithInt32BiasBecomesQLinearConvAndMatchesIntegerReference) {
  for (bool float_bias : {false, true}) {
    SCOPED_TRACE(float_bias ? "float bias" : "int32 bias DQ");
    ir::Graph g;
    const Weights w = makeWeights(M, C * 9, 7);
    const std::vector<int32_t> bias = {-300, 25, 0, 1234};
    convGraph(g, w, bias, float_bias);
    EXPECT_TRUE(passes::rewriteQdqToIntegerOps(g));
    ir::verifyGraphOrThrow(g);
    EXPECT_EQ(opHistogram(g),
              (std::map<std::string, int>{{"QuantizeLinear", 1}, {"QLinearConv", 1}, {"DequantizeLinear", 1}}));
    for (uint64_t seed : {1, 2, 3}) {
      Tensor x = randomTensor({1, C, H, W}, seed, -2.0f, 2.5f);
      expectEqualValues(runReference(g, {x}).at(0), convReference(x, w, bias));
    }
    EXPECT_FALSE(passes::rewriteQdqToIntegerOps(g));
  }
}

// GlobalAveragePool -> Flatten -> Gemm (per-channel int8 weights, int32 bias)
// as MobileNetV2's head, plus a residual Add whose input DQ has two readers.
TEST(QdqToIntegerOps, AddPoolFlattenGemmHeadMatchesIntegerReference) {
  constexpr int64_t K = 4, N = 3, S = 9;  // channels, classes, spatial size 3x3
  const Q kA{0.03f, 100}, kB{0.04f, 90}, kSum{0.06f, 110}, kPool{0.025f, 5}, kOut{0.07f, 60};
  const Weights w = makeWeights(N, K, 5);
  const std::vector<int32_t> bias = {500, -40, 3};
  ir::Graph g;
  ir::Value* a = g.addInput("a", f32({1, K, 3, 3}));
  ir::Value* b = g.addInput("b", f32({1, K, 3, 3}));
  ir::Value* a_dq = qdq(g, a, kA, "a");
  ir::Value* sum = g.addNode("Add", {a_dq, qdq(g, b, kB, "b")}, 1, {}, "add")->output();
  // A second reader of a's DQ: onnxruntime duplicates the DQ per reader.
  ir::Value* sum2 = g.addNode("Add", {a_dq, qdq(g, sum, kSum, "sum")}, 1, {}, "add2")->output();
  ir::Value* pooled = g.addNode("GlobalAveragePool", {qdq(g, sum2, kSum, "sum2")}, 1, {}, "pool")->output();
  rt::AttributeMap flat_axis;
  flat_axis.set("axis", int64_t{1});
  ir::Value* flat = g.addNode("Flatten", {qdq(g, pooled, kPool, "pool")}, 1, flat_axis, "flatten")->output();
  rt::AttributeMap gemm_attrs;
  gemm_attrs.set("transB", int64_t{1});
  ir::Value* logits =
      g.addNode("Gemm",
                {qdq(g, flat, kPool, "flat"), weightDq(g, w, {N, K}, "fc.w"), biasDq(g, bias, kPool.scale, w, "fc.b")},
                1, gemm_attrs, "fc")
          ->output();
  g.addOutput(qdq(g, logits, kOut, "out"));
  passes::inferShapes(g);

  EXPECT_TRUE(passes::rewriteQdqToIntegerOps(g));
  ir::verifyGraphOrThrow(g);
  EXPECT_EQ(opHistogram(g), (std::map<std::string, int>{{"QuantizeLinear", 2},
                                                        {"com.microsoft.QLinearAdd", 2},
                                                        {"com.microsoft.QLinearGlobalAveragePool", 1},
                                                        {"Flatten", 1},
                                                        {"com.microsoft.QGemm", 1},
                                                        {"DequantizeLinear", 1}}));

  for (uint64_t seed : {4, 5, 6}) {
    Tensor ta = randomTensor({1, K, 3, 3}, seed, -3.0f, 3.0f), tb = randomTensor({1, K, 3, 3}, seed + 100, -3.0f, 3.0f);
    std::vector<float> want;
    {
      // QLinearAdd as MLAS's AVX2 kernel computes it: scale ratios, a fixed
      // part from the zero points, two fused multiply-adds, round half even.
      auto qadd = [](int32_t qa, Q pa, int32_t qb, Q pb, Q pc) {
        const float ra = pa.scale / pc.scale, rb = pb.scale / pc.scale;
        const float fixed =
            static_cast<float>(pc.zp) - (ra * static_cast<float>(pa.zp) + rb * static_cast<float>(pb.zp));
        const float v = std::fma(static_cast<float>(qa), ra, std::fma(static_cast<float>(qb), rb, fixed));
        return static_cast<int32_t>(std::min(std::max(std::nearbyint(v), 0.0f), 255.0f));
      };
      std::vector<int32_t> s2(static_cast<size_t>(K * S));
      for (int64_t i = 0; i < K * S; ++i) {
        const int32_t qa = quantize(ta.data<float>()[i], kA.scale, kA.zp);
        const int32_t qb = quantize(tb.data<float>()[i], kB.scale, kB.zp);
        const int32_t s1 = qadd(qa, kA, qb, kB, kSum);
        s2[i] = qadd(qa, kA, s1, kSum, kSum);
      }
      std::vector<int32_t> pooled_q(K);
      for (int64_t c = 0; c < K; ++c) {
        int32_t acc = -kSum.zp * static_cast<int32_t>(S);
        for (int64_t i = 0; i < S; ++i) acc += s2[c * S + i];
        pooled_q[c] = requantize(acc, kSum.scale / (kPool.scale * static_cast<float>(S)), kPool.zp);
      }
      for (int64_t n = 0; n < N; ++n) {
        int32_t acc = bias[n];
        for (int64_t k = 0; k < K; ++k) acc += (pooled_q[k] - kPool.zp) * w.q[n * K + k];
        const float scale = 1.0f * kPool.scale * w.scale[n] / kOut.scale;
        want.push_back(dequantize(requantize(acc, scale, kOut.zp), kOut.scale, kOut.zp));
      }
    }
    expectEqualValues(runReference(g, {ta, tb}).at(0), want);
  }
}

TEST(QdqToIntegerOps, GemmWithoutQuantizeLinearGivesFloatQGemm) {
  constexpr int64_t K = 5, N = 2;
  const Weights w = makeWeights(N, K, 9);
  const std::vector<int32_t> bias = {-17, 99};
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, K}));
  rt::AttributeMap attrs;
  attrs.set("transB", int64_t{1});
  g.addOutput(g.addNode("Gemm", {qdq(g, x, kX, "x"), weightDq(g, w, {N, K}, "w"), biasDq(g, bias, kX.scale, w, "b")}, 1,
                        attrs, "fc")
                  ->output());
  passes::inferShapes(g);
  EXPECT_TRUE(passes::rewriteQdqToIntegerOps(g));
  EXPECT_EQ(countOp(g, "com.microsoft.QGemm"), 1);
  EXPECT_EQ(g.outputs()[0]->type().dtype, DType::F32);
  Tensor tx = randomTensor({2, K}, 3, -2.0f, 2.0f);
  std::vector<float> want;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t n = 0; n < N; ++n) {
      int32_t acc = bias[n];
      for (int64_t k = 0; k < K; ++k)
        acc += (quantize(tx.data<float>()[r * K + k], kX.scale, kX.zp) - kX.zp) * w.q[n * K + k];
      want.push_back(static_cast<float>(acc) * (1.0f * kX.scale * w.scale[n]));
    }
  expectEqualValues(runReference(g, {tx}).at(0), want);
}

TEST(QdqToIntegerOps, Fp32GraphIsUntouched) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, C, H, W}));
  ir::Value* conv =
      g.addNode("Conv",
                {x, g.addConstant("w", randomTensor({M, C, 3, 3}, 1)), g.addConstant("b", randomTensor({M}, 2))}, 1,
                conv3x3(), "conv")
          ->output();
  ir::Value* pooled = g.addNode("GlobalAveragePool", {conv}, 1, {}, "pool")->output();
  g.addOutput(g.addNode("Add", {pooled, pooled}, 1, {}, "add")->output());
  passes::inferShapes(g);
  const auto before = opHistogram(g);
  EXPECT_FALSE(passes::rewriteQdqToIntegerOps(g));
  EXPECT_EQ(opHistogram(g), before);
}

TEST(QdqToIntegerOps, GroupsOutsideThePatternAreLeftAlone) {
  const Weights w = makeWeights(M, C * 9, 3);
  // (1) Flatten between a DQ and a Q with different scales.
  {
    ir::Graph g;
    ir::Value* x = g.addInput("x", f32({1, C, 2, 2}));
    ir::Value* flat = g.addNode("Flatten", {qdq(g, x, kX, "x")}, 1, {}, "flatten")->output();
    g.addOutput(qdq(g, flat, kY, "y"));
    passes::inferShapes(g);
    const auto before = opHistogram(g);
    EXPECT_FALSE(passes::rewriteQdqToIntegerOps(g));
    EXPECT_EQ(opHistogram(g), before);
  }
  // (2) Conv whose output is read by the Q and by another node; (3) Conv with
  // no Q after it; (4) int8 activations with uint8 weights; (5) a float bias
  // that is not a constant.
  for (int variant : {2, 3, 4, 5}) {
    SCOPED_TRACE(variant);
    ir::Graph g;
    ir::Value* x = g.addInput("x", f32({1, C, H, W}));
    ir::Value* xdq = qdq(g, x, kX, "x");
    ir::Value* wdq = weightDq(g, w, {M, C, 3, 3}, "w");
    if (variant == 4) {
      xdq = g.addNode(
                 "DequantizeLinear",
                 {g.addNode("QuantizeLinear", {x, g.addConstant("s8", Tensor::scalar<float>(0.02f)),
                                               g.addConstant("z8", Tensor::scalar<int8_t>(0))})
                      ->output(),
                  g.addConstant("s8b", Tensor::scalar<float>(0.02f)), g.addConstant("z8b", Tensor::scalar<int8_t>(0))})
                ->output();
      std::vector<uint8_t> wu(w.q.size());
      for (size_t i = 0; i < wu.size(); ++i) wu[i] = static_cast<uint8_t>(w.q[i] + 128);
      wdq = g.addNode("DequantizeLinear", {g.addConstant("wu", Tensor::fromVector<uint8_t>({M, C, 3, 3}, wu)),
                                           g.addConstant("wus", Tensor::scalar<float>(0.01f)),
                                           g.addConstant("wuz", Tensor::scalar<uint8_t>(128))})
                ->output();
    }
    std::vector<ir::Value*> inputs = {xdq, wdq};
    if (variant == 5) inputs.push_back(g.addInput("bias", f32({M})));
    ir::Value* conv = g.addNode("Conv", inputs, 1, conv3x3(), "conv")->output();
    if (variant == 2) g.addOutput(g.addNode("Relu", {conv}, 1, {}, "relu")->output());
    if (variant == 3) {
      g.addOutput(conv);
    } else if (variant == 4) {
      ir::Value* yq = g.addNode("QuantizeLinear", {conv, g.addConstant("ys8", Tensor::scalar<float>(0.05f)),
                                                   g.addConstant("yz8", Tensor::scalar<int8_t>(0))})
                          ->output();
      g.addOutput(yq);
    } else {
      g.addOutput(qdq(g, conv, kY, "y"));
    }
    passes::inferShapes(g);
    const auto before = opHistogram(g);
    EXPECT_FALSE(passes::rewriteQdqToIntegerOps(g));
    EXPECT_EQ(opHistogram(g), before);
  }
}

// A DQ shared by a rewritten group and a float reader stays for the float
// reader (onnxruntime's EnsureUniqueDQForNodeUnit duplicates it).
TEST(QdqToIntegerOps, SharedDequantizeLinearStaysForItsOtherReaders) {
  const Weights w = makeWeights(M, C * 9, 13);
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, C, H, W}));
  ir::Value* xdq = qdq(g, x, kX, "x");
  ir::Value* conv = g.addNode("Conv", {xdq, weightDq(g, w, {M, C, 3, 3}, "w")}, 1, conv3x3(), "conv")->output();
  g.addOutput(qdq(g, conv, kY, "y"));
  g.addOutput(g.addNode("Relu", {xdq}, 1, {}, "relu")->output());
  passes::inferShapes(g);
  EXPECT_TRUE(passes::rewriteQdqToIntegerOps(g));
  ir::verifyGraphOrThrow(g);
  EXPECT_EQ(countOp(g, "QLinearConv"), 1);
  EXPECT_EQ(countOp(g, "Conv"), 0);
  EXPECT_EQ(countOp(g, "Relu"), 1);
  EXPECT_EQ(countOp(g, "DequantizeLinear"), 2);  // x's, kept for the Relu, and y's
  Tensor tx = randomTensor({1, C, H, W}, 8, -2.0f, 2.5f);
  expectEqualValues(runReference(g, {tx}).at(0), convReference(tx, w, std::vector<int32_t>(M, 0)));
}

}  // namespace
}  // namespace vdla
