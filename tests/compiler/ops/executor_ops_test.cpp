// Whole graphs through shape inference and the reference executor: a
// ResNet-18-shaped network (timed: the reference executor must stay usable on
// 224x224 models), a quantised QOperator chain and a QDQ chain checked against
// the same computation done with the fp32 operators.
#include <chrono>
#include <iostream>
#include <random>

#include "op_test_util.h"
#include "vdla/compiler/reference_executor.h"

namespace vdla::ir::testing {
namespace {

Tensor randomTensor(const Shape& shape, std::mt19937& rng, float scale) {
  Tensor t(DType::F32, shape);
  std::normal_distribution<float> dist(0.0f, scale);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

struct Builder {
  Graph& g;
  std::mt19937& rng;
  int counter = 0;

  Value* conv(Value* x, int64_t in_c, int64_t out_c, int64_t k, int64_t stride, bool relu) {
    const int64_t pad = k / 2;
    Value* w = g.addConstant("w" + std::to_string(counter),
                             randomTensor({out_c, in_c, k, k}, rng, std::sqrt(2.0f / float(in_c * k * k))));
    Value* b = g.addConstant("b" + std::to_string(counter), randomTensor({out_c}, rng, 0.01f));
    AttributeMap a = makeAttrs(
        {{"kernel_shape", Ints{k, k}}, {"strides", Ints{stride, stride}}, {"pads", Ints{pad, pad, pad, pad}}});
    if (relu) a.set("activation", std::string("Relu"));
    return g.addNode("Conv", {x, w, b}, 1, a, "conv" + std::to_string(counter++))->output();
  }

  Value* basicBlock(Value* x, int64_t in_c, int64_t out_c, int64_t stride) {
    Value* y = conv(conv(x, in_c, out_c, 3, stride, true), out_c, out_c, 3, 1, false);
    Value* shortcut = (stride != 1 || in_c != out_c) ? conv(x, in_c, out_c, 1, stride, false) : x;
    return g.addNode("Add", {y, shortcut}, 1, makeAttrs({{"activation", std::string("Relu")}}))->output();
  }
};

TEST(ReferenceExecutorOps, ResNet18ShapedForwardPass) {
  std::mt19937 rng(42);
  Graph g;
  g.name = "resnet18_like";
  Builder b{g, rng};
  Value* x = g.addInput("image", f32({1, 3, 224, 224}));
  Value* h = b.conv(x, 3, 64, 7, 2, true);
  h = g.addNode("MaxPool", {h}, 1,
                makeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}))
          ->output();
  int64_t c = 64;
  for (int64_t stage_c : {64, 128, 256, 512}) {
    h = b.basicBlock(h, c, stage_c, stage_c == 64 ? 1 : 2);
    h = b.basicBlock(h, stage_c, stage_c, 1);
    c = stage_c;
  }
  h = g.addNode("GlobalAveragePool", {h})->output();
  h = g.addNode("Flatten", {h})->output();
  Value* fc_w = g.addConstant("fc_w", randomTensor({1000, 512}, rng, 0.05f));
  Value* fc_b = g.addConstant("fc_b", randomTensor({1000}, rng, 0.01f));
  h = g.addNode("Gemm", {h, fc_w, fc_b}, 1, makeAttrs({{"transB", int64_t{1}}}))->output();
  g.addOutput(g.addNode("Softmax", {h}, 1, makeAttrs({{"axis", int64_t{1}}}))->output());
  passes::inferShapes(g);

  Tensor image = randomTensor({1, 3, 224, 224}, rng, 1.0f);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Tensor> out = runReference(g, {image});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ resnet18-shaped reference forward: " << seconds << " s ]" << std::endl;
  RecordProperty("forward_seconds", std::to_string(seconds));
  ASSERT_EQ(out[0].shape(), (Shape{1, 1000}));
  double sum = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(std::isfinite(out[0].data<float>()[i]));
    sum += out[0].data<float>()[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-4);
}

TEST(ReferenceExecutorOps, QdqChainMatchesQOperatorChain) {
  // x(f32) -> QuantizeLinear -> QLinearConv -> DequantizeLinear versus
  // x -> Q -> DQ -> Conv(f32 weights dequantised) -> Q -> DQ. Both quantise the
  // same real value, so they agree up to one quantum where the float sums round
  // differently.
  std::mt19937 rng(3);
  const float xs = 0.02f, ws = 0.005f, ys = 0.05f;
  Tensor wq(DType::I8, {4, 3, 3, 3});
  std::uniform_int_distribution<int> wd(-100, 100);
  for (int64_t i = 0; i < wq.numElements(); ++i) wq.data<int8_t>()[i] = static_cast<int8_t>(wd(rng));
  auto scalarF = [](float v) { return Tensor::fromVector<float>({}, {v}); };
  auto zpU = [](uint8_t v) { return Tensor::fromVector<uint8_t>({}, {v}); };
  AttributeMap pads = makeAttrs({{"pads", Ints{1, 1, 1, 1}}});

  Graph q;
  {
    Value* x = q.addInput("x", f32({1, 3, 8, 8}));
    Value* xq =
        q.addNode("QuantizeLinear", {x, q.addConstant("xs", scalarF(xs)), q.addConstant("xz", zpU(128))})->output();
    Value* yq =
        q.addNode("QLinearConv",
                  {xq, q.addConstant("xs2", scalarF(xs)), q.addConstant("xz2", zpU(128)), q.addConstant("w", wq),
                   q.addConstant("ws", scalarF(ws)), q.addConstant("wz", Tensor::fromVector<int8_t>({}, {0})),
                   q.addConstant("ys", scalarF(ys)), q.addConstant("yz", zpU(100))},
                  1, pads)
            ->output();
    q.addOutput(q.addNode("DequantizeLinear", {yq, q.addConstant("ys2", scalarF(ys)), q.addConstant("yz2", zpU(100))})
                    ->output());
  }
  Graph d;
  {
    Value* x = d.addInput("x", f32({1, 3, 8, 8}));
    Value* xq =
        d.addNode("QuantizeLinear", {x, d.addConstant("xs", scalarF(xs)), d.addConstant("xz", zpU(128))})->output();
    Value* xd = d.addNode("DequantizeLinear", {xq, d.addConstant("xs2", scalarF(xs)), d.addConstant("xz2", zpU(128))})
                    ->output();
    Value* wdq = d.addNode("DequantizeLinear", {d.addConstant("w", wq), d.addConstant("ws", scalarF(ws))})->output();
    Value* y = d.addNode("Conv", {xd, wdq}, 1, pads)->output();
    Value* yq =
        d.addNode("QuantizeLinear", {y, d.addConstant("ys", scalarF(ys)), d.addConstant("yz", zpU(100))})->output();
    d.addOutput(d.addNode("DequantizeLinear", {yq, d.addConstant("ys2", scalarF(ys)), d.addConstant("yz2", zpU(100))})
                    ->output());
  }
  passes::inferShapes(q);
  passes::inferShapes(d);
  EXPECT_EQ(q.outputs()[0]->type(), f32({1, 4, 8, 8}));
  Tensor x = randomTensor({1, 3, 8, 8}, rng, 1.0f);
  Tensor a = runReference(q, {x})[0], b = runReference(d, {x})[0];
  int differing = 0;
  for (int64_t i = 0; i < a.numElements(); ++i) {
    const float diff = std::fabs(a.data<float>()[i] - b.data<float>()[i]);
    ASSERT_LE(diff, ys * 1.01f) << i;
    differing += diff > 0;
  }
  EXPECT_LE(differing, 4);
}

TEST(ReferenceExecutorOps, ReshapeGatherConcatOnShapes) {
  // The shape-computation chain exporters emit for flatten: Shape -> Gather ->
  // Unsqueeze -> Concat(-1) -> Reshape; here with a constant shape at the end.
  Graph g;
  Value* x = g.addInput("x", f32({2, 3, 2, 2}));
  Value* s = g.addNode("Shape", {x})->output();
  Value* n = g.addNode("Gather", {s, g.addConstant("zero", Tensor::fromVector<int64_t>({}, {0}))})->output();
  Value* n1 = g.addNode("Unsqueeze", {n}, 1, makeAttrs({{"axes", Ints{0}}}))->output();
  Value* cat = g.addNode("Concat", {n1, g.addConstant("m1", Tensor::fromVector<int64_t>({1}, {-1}))}, 1,
                         makeAttrs({{"axis", int64_t{0}}}))
                   ->output();
  g.addOutput(cat);
  Value* r = g.addNode("Reshape", {x, g.addConstant("shape", Tensor::fromVector<int64_t>({2}, {2, -1}))})->output();
  g.addOutput(g.addNode("ReduceMean", {r}, 1, makeAttrs({{"axes", Ints{1}}, {"keepdims", int64_t{0}}}))->output());
  passes::inferShapes(g);
  Tensor in(DType::F32, {2, 3, 2, 2});
  for (int64_t i = 0; i < 24; ++i) in.data<float>()[i] = static_cast<float>(i);
  auto out = runReference(g, {in});
  EXPECT_EQ(out[0].toVector<int64_t>(), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(out[1].toVector<float>(), (std::vector<float>{5.5f, 17.5f}));
}

}  // namespace
}  // namespace vdla::ir::testing
