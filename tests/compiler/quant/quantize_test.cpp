// quantizeGraph on small hand-built graphs: which operators each node becomes,
// the graph's interface, and agreement with the fp32 graph value by value on
// inputs the calibration did not see.
#include <gtest/gtest.h>

#include "passes/pass_test_util.h"
#include "quant_test_util.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/quant/quantize.h"
#include "vdla/runtime/qconv_attributes.h"

namespace vdla::quant {
namespace {

using vdla::testing::f32;
using vdla::testing::opHistogram;
using vdla::testing::randomTensor;

rt::AttributeMap convAttrs(int64_t pad, int64_t group = 1) {
  rt::AttributeMap a;
  a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  a.set("group", group);
  return a;
}

// Conv+Relu, Conv + residual Add + Relu, MaxPool, Sigmoid (stays fp32), a
// depthwise Conv + Clip after it, GlobalAveragePool, Flatten, Gemm: in the
// unfused form, then through the standard pipeline.
std::unique_ptr<ir::Graph> smallNet() {
  auto g = std::make_unique<ir::Graph>();
  g->name = "small";
  ir::Value* x = g->addInput("x", f32({2, 4, 10, 10}));
  auto constant = [&](const std::string& name, rt::Shape s, uint64_t seed, float range) {
    return g->addConstant(name, randomTensor(std::move(s), seed, -range, range));
  };
  ir::Value* c1 = g->addNode("Conv", {x, constant("w1", {8, 4, 3, 3}, 1, 0.3f), constant("b1", {8}, 2, 0.2f)}, 1,
                             convAttrs(1), "conv1")
                      ->output();
  ir::Value* a1 = g->addNode("Relu", {c1}, 1, {}, "relu1")->output();
  ir::Value* c2 = g->addNode("Conv", {a1, constant("w2", {8, 8, 3, 3}, 3, 0.2f)}, 1, convAttrs(1), "conv2")->output();
  ir::Value* s = g->addNode("Add", {c2, a1}, 1, {}, "add")->output();
  ir::Value* a2 = g->addNode("Relu", {s}, 1, {}, "relu2")->output();
  rt::AttributeMap pool;
  pool.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool.set("strides", std::vector<int64_t>{2, 2});
  ir::Value* p = g->addNode("MaxPool", {a2}, 1, pool, "pool")->output();
  ir::Value* sg = g->addNode("Sigmoid", {p}, 1, {}, "sigmoid")->output();
  ir::Value* c3 = g->addNode("Conv", {sg, constant("w3", {8, 1, 3, 3}, 4, 1.0f)}, 1, convAttrs(1, 8), "dw")->output();
  ir::Value* lo = g->addConstant("lo", rt::Tensor::scalar<float>(0.0f));
  ir::Value* hi = g->addConstant("hi", rt::Tensor::scalar<float>(0.9f));
  ir::Value* a3 = g->addNode("Clip", {c3, lo, hi}, 1, {}, "clip")->output();
  ir::Value* gap = g->addNode("GlobalAveragePool", {a3}, 1, {}, "gap")->output();
  ir::Value* flat = g->addNode("Flatten", {gap}, 1, {}, "flatten")->output();
  rt::AttributeMap gemm;
  gemm.set("transB", int64_t{1});
  ir::Value* y = g->addNode("Gemm", {flat, constant("wf", {5, 8}, 5, 0.5f), constant("bf", {5}, 6, 0.1f)}, 1, gemm,
                            "fc", "", {"logits"})
                     ->output();
  g->addOutput(y);
  runStandardPipeline(*g);
  return g;
}

std::vector<std::vector<rt::Tensor>> samples(const ir::Graph& g, int count, uint64_t seed) {
  std::vector<std::vector<rt::Tensor>> out;
  for (int i = 0; i < count; ++i) out.push_back({randomTensor(g.inputs()[0]->type().shape, seed + i)});
  return out;
}

TEST(QuantizeGraph, SmallNetBecomesIntegerWhereItCan) {
  auto fp32 = smallNet();
  auto q = smallNet();
  const CalibrationTable table = calibrate(*fp32, samples(*fp32, 16, 100));
  const QuantizeReport report = quantizeGraph(*q, table);
  EXPECT_EQ(opHistogram(*q), (std::map<std::string, int>{{"vdla.QConv", 4},
                                                         {"MaxPool", 1},
                                                         {"Sigmoid", 1},
                                                         {"com.microsoft.QLinearGlobalAveragePool", 1},
                                                         {"Flatten", 1},
                                                         {"Reshape", 2},
                                                         {"QuantizeLinear", 2},       // x, and the Sigmoid's output
                                                         {"DequantizeLinear", 2}}));  // the Sigmoid's input, logits
  EXPECT_EQ(report.float_nodes, std::vector<std::string>{"sigmoid"});
  ASSERT_EQ(report.layers.size(), 4u);
  int residual = 0;
  for (const ir::Node* n : q->nodes()) {
    if (n->qualifiedOp() == "MaxPool" || n->qualifiedOp() == "Flatten") {
      EXPECT_EQ(n->output(0)->type().dtype, rt::DType::I8) << n->name();
    }
    if (n->qualifiedOp() != "vdla.QConv") continue;
    const rt::QConvAttributes a = rt::readQConvAttributes(n->attrs());
    EXPECT_EQ(a.x_zero_point, 0);
    if (n->numInputs() == 7) {
      ++residual;
      EXPECT_EQ(a.clip_lo, 0) << "the Add's Relu";
    }
    if (n->input(1)->type().shape == rt::Shape{8, 1, 3, 3}) {
      EXPECT_EQ(a.group, 8);
      EXPECT_EQ(a.clip_lo, 0);  // Clip(0, 0.9)
    }
  }
  EXPECT_EQ(residual, 1);
  for (const auto& l : report.layers) EXPECT_GE(l.mult_bits, 12) << l.node;
  // The interface is unchanged.
  ASSERT_EQ(q->inputs().size(), 1u);
  EXPECT_EQ(q->inputs()[0]->name(), "x");
  EXPECT_EQ(q->inputs()[0]->type(), fp32->inputs()[0]->type());
  ASSERT_EQ(q->outputs().size(), 1u);
  EXPECT_EQ(q->outputs()[0]->name(), "logits");
  EXPECT_EQ(q->outputs()[0]->type(), fp32->outputs()[0]->type());

  // Agreement on inputs calibration did not see, value by value.
  for (const auto& in : samples(*fp32, 4, 900)) {
    std::vector<rt::Tensor> want, got;
    const auto fv = testing::runCapturing(*fp32, in, &want);
    const auto qv = testing::runCapturing(*q, in, &got);
    for (const auto& a : testing::perValueAgreement(report, fv, qv)) EXPECT_GT(a.cosine, 0.995) << a.name;
    EXPECT_GT(testing::cosineSimilarity(testing::toDoubles(got[0]), testing::toDoubles(want[0])), 0.995);
  }
}

TEST(QuantizeGraph, DenseLayerWithAlphaBetaAndUntransposedWeights) {
  auto build = [] {
    auto g = std::make_unique<ir::Graph>();
    ir::Value* x = g->addInput("x", f32({3, 6}));
    rt::AttributeMap a;
    a.set("alpha", 0.5);
    a.set("beta", 2.0);
    a.set("activation", std::string("Relu"));
    ir::Value* y =
        g->addNode("Gemm", {x, g->addConstant("b", randomTensor({6, 4}, 1)), g->addConstant("c", randomTensor({4}, 2))},
                   1, a, "fc", "", {"y"})
            ->output();
    g->addOutput(y);
    passes::inferShapes(*g);
    return g;
  };
  auto fp32 = build(), q = build();
  quantizeGraph(*q, calibrate(*fp32, samples(*fp32, 8, 10)));
  EXPECT_EQ(opHistogram(*q), (std::map<std::string, int>{
                                 {"vdla.QConv", 1}, {"Reshape", 2}, {"QuantizeLinear", 1}, {"DequantizeLinear", 1}}));
  for (const auto& in : samples(*fp32, 3, 77)) {
    const rt::Tensor want = runReference(*fp32, in)[0], got = runReference(*q, in)[0];
    double max_abs = 0;
    for (int64_t i = 0; i < want.numElements(); ++i) max_abs = std::max(max_abs, std::fabs(want.getAsDouble(i)));
    for (int64_t i = 0; i < want.numElements(); ++i) {
      EXPECT_GE(got.getAsDouble(i), 0.0);  // the fused Relu
      EXPECT_NEAR(got.getAsDouble(i), want.getAsDouble(i), 0.03 * max_abs) << i;
    }
  }
}

TEST(QuantizeGraph, MatMulWithConstantWeightsIsADenseLayer) {
  auto build = [] {
    auto g = std::make_unique<ir::Graph>();
    ir::Value* x = g->addInput("x", f32({2, 5}));
    g->addOutput(
        g->addNode("MatMul", {x, g->addConstant("b", randomTensor({5, 3}, 4))}, 1, {}, "mm", "", {"y"})->output());
    passes::inferShapes(*g);
    return g;
  };
  auto fp32 = build(), q = build();
  quantizeGraph(*q, calibrate(*fp32, samples(*fp32, 8, 20)));
  EXPECT_EQ(vdla::testing::countOp(*q, "vdla.QConv"), 1);
  EXPECT_EQ(vdla::testing::countOp(*q, "MatMul"), 0);
  const auto in = samples(*fp32, 1, 55)[0];
  EXPECT_GT(testing::cosineSimilarity(testing::toDoubles(runReference(*q, in)[0]),
                                      testing::toDoubles(runReference(*fp32, in)[0])),
            0.999);
}

TEST(QuantizeGraph, PercentileThresholdsAndMissingStatistics) {
  auto fp32 = smallNet();
  const CalibrationTable table = calibrate(*fp32, samples(*fp32, 4, 1));
  auto q = smallNet();
  QuantizeOptions o;
  o.threshold = Threshold::Percentile;
  o.percentile = 0.99;
  const QuantizeReport report = quantizeGraph(*q, table, o);
  bool saw_input = false;
  for (const auto& v : report.values)
    if (v.float_value == "x") {
      saw_input = true;
      EXPECT_DOUBLE_EQ(v.scale, table.find("x")->percentile(0.99) / 127);
      EXPECT_LT(v.scale, table.find("x")->maxAbs() / 127);
    }
  EXPECT_TRUE(saw_input);

  CalibrationTable partial;
  partial.record("x", samples(*fp32, 1, 1)[0][0]);
  auto q2 = smallNet();
  try {
    quantizeGraph(*q2, partial);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no calibration statistics for value"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla::quant
