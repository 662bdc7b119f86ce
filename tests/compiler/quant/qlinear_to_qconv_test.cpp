// convertQLinearToQConv on small integer graphs built here: the converted
// graph must compute what the ONNX integer operators compute (onnxruntime's
// semantics, run by the reference kernels) within one output unit, for uint8
// and int8 activations with nonzero zero points and padding.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "vdla/compiler/ir/printer.h"
#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/quant/qlinear_to_qconv.h"
#include "vdla/compiler/reference_executor.h"

namespace vdla::quant {
namespace {

using ir::DType;

template <typename T>
rt::Tensor scalar(T v) {
  return rt::Tensor::scalar<T>(v);
}

rt::Tensor randomI8(rt::Shape shape, std::mt19937& rng, int lo = -127, int hi = 127) {
  rt::Tensor t(DType::I8, shape);
  std::uniform_int_distribution<int> d(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<int8_t>()[i] = static_cast<int8_t>(d(rng));
  return t;
}

rt::Tensor randomScales(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> d(0.002f, 0.02f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& s : v) s = d(rng);
  return rt::Tensor::fromVector<float>({n}, v);
}

rt::Tensor randomBias(int64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> d(-3000, 3000);
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int32_t& b : v) b = d(rng);
  return rt::Tensor::fromVector<int32_t>({n}, v);
}

// input f32 -> Q -> QLinearConv 3x3 pad 1 -> QLinearConv depthwise stride 2 ->
// QLinearAdd (CPU) -> QLinearGlobalAveragePool -> Flatten -> QGemm -> DQ.
// `activation_type` is the quantised type of every activation (U8 or I8).
std::unique_ptr<ir::Graph> buildIntegerNet(DType activation_type, uint32_t seed) {
  std::mt19937 rng(seed);
  auto g = std::make_unique<ir::Graph>();
  g->name = "integer_net";
  const bool u8 = activation_type == DType::U8;
  auto zp = [&](int z) {
    return u8 ? g->addConstant(g->uniqueName("zp"), scalar<uint8_t>(static_cast<uint8_t>(z)))
              : g->addConstant(g->uniqueName("zp"), scalar<int8_t>(static_cast<int8_t>(z - 128)));
  };
  auto sc = [&](float s) { return g->addConstant(g->uniqueName("scale"), scalar<float>(s)); };
  auto w0 = [&](int64_t n) { return g->addConstant(g->uniqueName("wzp"), rt::Tensor(DType::I8, {n})); };
  ir::Value* x = g->addInput("x", {DType::F32, {1, 8, 10, 10}, rt::Layout::RowMajor});
  ir::Value* s_in = sc(0.02f);
  ir::Value* z_in = zp(120);
  ir::Value* q = g->addNode("QuantizeLinear", {x, s_in, z_in}, 1, {}, "quantize")->output(0);

  rt::AttributeMap conv_attrs;
  conv_attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv_attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  ir::Value* s1 = sc(0.05f);
  ir::Value* z1 = zp(0);  // a ReLU folded into the range
  ir::Value* c1 = g->addNode("QLinearConv",
                             {q, s_in, z_in, g->addConstant("w1", randomI8({16, 8, 3, 3}, rng)),
                              g->addConstant("w1_scale", randomScales(16, rng)), w0(16), s1, z1,
                              g->addConstant("b1", randomBias(16, rng))},
                             1, conv_attrs, "conv1")
                      ->output(0);
  rt::AttributeMap dw_attrs;
  dw_attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  dw_attrs.set("strides", std::vector<int64_t>{2, 2});
  dw_attrs.set("group", int64_t{16});
  ir::Value* s2 = sc(0.04f);
  ir::Value* z2 = zp(131);
  ir::Value* c2 = g->addNode("QLinearConv",
                             {c1, s1, z1, g->addConstant("w2", randomI8({16, 1, 3, 3}, rng)),
                              g->addConstant("w2_scale", randomScales(16, rng)), w0(16), s2, z2,
                              g->addConstant("b2", randomBias(16, rng))},
                             1, dw_attrs, "conv2")
                      ->output(0);
  rt::AttributeMap pool_attrs;
  pool_attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool_attrs.set("strides", std::vector<int64_t>{2, 2});
  ir::Value* c1_small = g->addNode("MaxPool", {c1}, 1, pool_attrs, "pool")->output(0);
  ir::Value* s3 = sc(0.06f);
  ir::Value* z3 = zp(128);
  ir::Value* add =
      g->addNode("QLinearAdd", {c2, s2, z2, c1_small, s1, z1, s3, z3}, 1, {}, "add", "com.microsoft")->output(0);
  ir::Value* s4 = sc(0.03f);
  ir::Value* z4 = zp(125);
  ir::Value* gap =
      g->addNode("QLinearGlobalAveragePool", {add, s3, z3, s4, z4}, 1, {}, "gap", "com.microsoft")->output(0);
  rt::AttributeMap flat_attrs;
  flat_attrs.set("axis", int64_t{1});
  ir::Value* flat = g->addNode("Flatten", {gap}, 1, flat_attrs, "flatten")->output(0);
  rt::AttributeMap gemm_attrs;
  gemm_attrs.set("transB", int64_t{1});
  ir::Value* s5 = sc(0.1f);
  ir::Value* z5 = zp(140);
  ir::Value* fc = g->addNode("QGemm",
                             {flat, s4, z4, g->addConstant("w3", randomI8({10, 16}, rng)),
                              g->addConstant("w3_scale", randomScales(10, rng)), w0(10),
                              g->addConstant("b3", randomBias(10, rng)), s5, z5},
                             1, gemm_attrs, "fc", "com.microsoft")
                      ->output(0);
  ir::Value* y = g->addNode("DequantizeLinear", {fc, s5, z5}, 1, {}, "dequantize")->output(0);
  g->addOutput(y);
  passes::inferShapes(*g);
  ir::verifyGraphOrThrow(*g, ir::VerifyOptions{true});
  return g;
}

rt::Tensor randomInput(uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  rt::Tensor t(DType::F32, {1, 8, 10, 10});
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

class QLinearToQConv : public ::testing::TestWithParam<DType> {};

// The float form (onnxruntime's requantisation, and QLinearAdd on the uint8
// values a signed tensor stands for) gives the integer operators' outputs bit
// for bit; the integer form within one unit of the classifier's output.
TEST_P(QLinearToQConv, FloatFormIsExactIntegerFormWithinOneUnit) {
  for (RequantForm form : {RequantForm::Float, RequantForm::Integer})
    for (uint32_t seed = 1; seed <= 5; ++seed) {
      auto original = buildIntegerNet(GetParam(), seed);
      auto converted = buildIntegerNet(GetParam(), seed);
      ASSERT_TRUE(hasQLinearOperators(*converted));
      const QLinearConversionReport report = convertQLinearToQConv(*converted, form);
      EXPECT_EQ(report.convolutions, 2u);
      EXPECT_EQ(report.dense, 1u);
      EXPECT_TRUE(report.kept.empty());
      if (GetParam() == DType::U8) {
        EXPECT_GE(report.signed_values, 6u);
        EXPECT_EQ(converted->findNode("add")->attrs().getInt("unsigned_domain", 0), 1);
      }
      EXPECT_FALSE(hasQLinearOperators(*converted));
      for (const ir::Node* n : converted->nodes())
        for (const ir::Value* v : n->outputs()) EXPECT_NE(v->type().dtype, DType::U8) << v->name();

      const rt::Tensor x = randomInput(seed + 100);
      const rt::Tensor want = runReference(*original, {x}).at(0);
      const rt::Tensor got = runReference(*converted, {x}).at(0);
      ASSERT_EQ(want.shape(), got.shape());
      int differing = 0;
      for (int64_t i = 0; i < want.numElements(); ++i) {
        // One unit of the classifier's output scale: the integer form rounds
        // half up with an integer multiplier where onnxruntime rounds a float
        // product half to even, and differences of one unit upstream propagate.
        const double unit = 0.1;
        EXPECT_NEAR(got.data<float>()[i], want.data<float>()[i], 2 * unit + 1e-6)
            << "seed " << seed << " element " << i;
        differing += got.data<float>()[i] != want.data<float>()[i];
      }
      if (form == RequantForm::Float)
        EXPECT_EQ(differing, 0) << "seed " << seed;
      else
        EXPECT_LE(differing, want.numElements() / 2) << "most outputs are identical";
    }
}

// One int8 QLinearConv with nonzero zero points, alone: the float form is
// onnxruntime's (the reference kernel) bit for bit; the integer
// requantisation (an integer multiplier, rounding half up) differs by at most
// one unit, on a few outputs in a thousand, which compound through a
// network's depth (docs/performance.md, "Agreement with onnxruntime").
TEST(QLinearToQConvLayer, FloatFormExactIntegerFormWithinOneUnit) {
  for (RequantForm form : {RequantForm::Float, RequantForm::Integer})
    for (uint32_t seed = 1; seed <= 3; ++seed) {
      auto build = [&] {
        std::mt19937 rng(seed);
        auto g = std::make_unique<ir::Graph>();
        ir::Value* x = g->addInput("x", {DType::I8, {1, 16, 12, 12}, rt::Layout::RowMajor});
        rt::AttributeMap a;
        a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
        a.set("kernel_shape", std::vector<int64_t>{3, 3});
        auto c = [&](const char* name, rt::Tensor t) { return g->addConstant(name, std::move(t)); };
        g->addOutput(g->addNode("QLinearConv",
                                {x, c("xs", scalar<float>(0.021f)), c("xz", scalar<int8_t>(-11)),
                                 c("w", randomI8({32, 16, 3, 3}, rng)), c("ws", randomScales(32, rng)),
                                 c("wz", rt::Tensor(DType::I8, {32})), c("ys", scalar<float>(0.047f)),
                                 c("yz", scalar<int8_t>(static_cast<int8_t>(-68 + 20 * int(seed)))),
                                 c("b", randomBias(32, rng))},
                                1, a, "conv")
                         ->output(0));
        passes::inferShapes(*g);
        return g;
      };
      auto original = build(), converted = build();
      ASSERT_EQ(convertQLinearToQConv(*converted, form).convolutions, 1u);
      std::mt19937 rng(seed + 50);
      rt::Tensor x(DType::I8, {1, 16, 12, 12});
      for (int64_t i = 0; i < x.numElements(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(rng());
      const rt::Tensor want = runReference(*original, {x}).at(0);
      const rt::Tensor got = runReference(*converted, {x}).at(0);
      ASSERT_EQ(got.shape(), want.shape());
      int64_t differing = 0;
      for (int64_t i = 0; i < want.numElements(); ++i) {
        const int d = int(got.data<int8_t>()[i]) - int(want.data<int8_t>()[i]);
        EXPECT_LE(std::abs(d), 1) << "seed " << seed << " element " << i;
        differing += d != 0;
      }
      if (form == RequantForm::Float)
        EXPECT_EQ(differing, 0) << "seed " << seed;
      else
        EXPECT_LE(differing * 100, want.numElements()) << "at most 1% of the outputs differ";
      std::printf("%s form, seed %u: %lld of %lld outputs one unit from onnxruntime's\n",
                  form == RequantForm::Float ? "float" : "integer", seed, static_cast<long long>(differing),
                  static_cast<long long>(want.numElements()));
    }
}

INSTANTIATE_TEST_SUITE_P(Activations, QLinearToQConv, ::testing::Values(DType::U8, DType::I8),
                         [](const auto& info) { return info.param == DType::U8 ? "Uint8" : "Int8"; });

TEST(QLinearToQConvRefusals, NonzeroWeightZeroPointStaysOnTheCpuWithAReason) {
  auto g = buildIntegerNet(DType::U8, 7);
  ir::Node* conv = g->findNode("conv1");
  ASSERT_NE(conv, nullptr);
  rt::Tensor wzp(DType::I8, {16});
  wzp.data<int8_t>()[3] = 2;
  conv->setInput(5, g->addConstant("odd_wzp", wzp));
  const QLinearConversionReport report = convertQLinearToQConv(*g);
  ASSERT_EQ(report.kept.size(), 1u);
  EXPECT_EQ(report.kept[0].first, "conv1");
  EXPECT_NE(report.kept[0].second.find("zero point"), std::string::npos) << report.kept[0].second;
  EXPECT_EQ(report.convolutions, 1u);
}

}  // namespace
}  // namespace vdla::quant
