#include "vdla/compiler/passes/batchnorm_folding.h"

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::countOp;
using testing::f32;
using testing::randomTensor;

// BN parameters with non-trivial statistics (var in [0.5, 1.5]).
ir::Value* addBatchNorm(ir::Graph& g, ir::Value* x, int64_t channels, const std::string& name, uint64_t seed) {
  ir::Value* gamma = g.addConstant(name + ".weight", randomTensor({channels}, seed, 0.5f, 1.5f));
  ir::Value* beta = g.addConstant(name + ".bias", randomTensor({channels}, seed + 1, -0.5f, 0.5f));
  ir::Value* mean = g.addConstant(name + ".mean", randomTensor({channels}, seed + 2, -0.5f, 0.5f));
  ir::Value* var = g.addConstant(name + ".var", randomTensor({channels}, seed + 3, 0.5f, 1.5f));
  rt::AttributeMap attrs;
  attrs.set("epsilon", 1e-3);
  return g.addNode("BatchNormalization", {x, gamma, beta, mean, var}, 1, attrs, name)->output();
}

ir::Node* addConv(ir::Graph& g, ir::Value* x, int64_t in, int64_t out, int64_t groups, bool bias,
                  const std::string& name) {
  std::vector<ir::Value*> inputs = {x, g.addConstant(name + ".weight", randomTensor({out, in / groups, 3, 3}, 7))};
  if (bias) inputs.push_back(g.addConstant(name + ".bias", randomTensor({out}, 8)));
  rt::AttributeMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  attrs.set("group", groups);
  return g.addNode("Conv", inputs, 1, attrs, name);
}

class ConvBatchNorm : public ::testing::TestWithParam<std::tuple<bool, int64_t>> {};

TEST_P(ConvBatchNorm, FoldsIntoTheConv) {
  auto [bias, groups] = GetParam();
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 4, 6, 6}));
  ir::Node* conv = addConv(g, x, 4, 8, groups, bias, "conv");
  ir::Value* y = addBatchNorm(g, conv->output(), 8, "bn", 11);
  g.addOutput(g.addNode("Relu", {y}, 1, {}, "relu")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, [](ir::Graph& gr) { return passes::foldBatchNorms(gr); }));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Conv", 1}, {"Relu", 1}}));
  ASSERT_EQ(conv->numInputs(), 3u);
  EXPECT_EQ(conv->input(2)->type().shape, (rt::Shape{8}));
  // The BN's parameters and the Conv's old weights are gone.
  EXPECT_EQ(g.findValue("bn.var"), nullptr);
  EXPECT_EQ(g.findValue("conv.weight"), nullptr);
  EXPECT_EQ(g.constants().size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(BiasAndGroups, ConvBatchNorm,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(int64_t{1}, int64_t{2}, int64_t{4})));

TEST(BatchNormFolding, StandaloneBatchNormBecomesMulAdd) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 3, 4, 5}));
  ir::Value* r = g.addNode("Relu", {x}, 1, {}, "relu")->output();
  g.addOutput(addBatchNorm(g, r, 3, "bn", 3));
  EXPECT_TRUE(testing::expectPreservesSemantics(g, [](ir::Graph& gr) { return passes::foldBatchNorms(gr); }));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Add", 1}, {"Mul", 1}, {"Relu", 1}}));
  EXPECT_EQ(g.outputs()[0]->name(), "bn_out");
}

TEST(BatchNormFolding, RankTwoBatchNorm) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({4, 6}));
  g.addOutput(addBatchNorm(g, x, 6, "bn1d", 5));
  EXPECT_TRUE(testing::expectPreservesSemantics(g, [](ir::Graph& gr) { return passes::foldBatchNorms(gr); }));
  EXPECT_EQ(countOp(g, "BatchNormalization"), 0);
}

TEST(BatchNormFolding, ConvReadByTwoNodesIsNotChanged) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 2, 5, 5}));
  ir::Node* conv = addConv(g, x, 2, 4, 1, false, "conv");
  ir::Value* bn = addBatchNorm(g, conv->output(), 4, "bn", 3);
  g.addOutput(g.addNode("Add", {bn, conv->output()}, 1, {}, "add")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, [](ir::Graph& gr) { return passes::foldBatchNorms(gr); }));
  EXPECT_EQ(conv->numInputs(), 2u);  // the other reader still needs the plain conv
  EXPECT_EQ(countOp(g, "Mul"), 1);
}

TEST(BatchNormFolding, KeepsBatchNormWhenAskedOrWithVariableParameters) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 2, 3, 3}));
  ir::Value* r = g.addNode("Relu", {x}, 1, {}, "relu")->output();
  g.addOutput(addBatchNorm(g, r, 2, "bn", 3));
  passes::inferShapes(g);
  passes::BatchNormFoldingOptions keep;
  keep.decompose_standalone = false;
  EXPECT_FALSE(passes::foldBatchNorms(g, keep));
  EXPECT_EQ(countOp(g, "BatchNormalization"), 1);

  ir::Graph h;
  ir::Value* y = h.addInput("y", f32({1, 2, 3, 3}));
  ir::Value* gamma = h.addInput("gamma", f32({2}));
  std::vector<ir::Value*> inputs = {y, gamma};
  for (const char* p : {"beta", "mean", "var"}) inputs.push_back(h.addConstant(p, randomTensor({2}, 1, 0.5f, 1.0f)));
  h.addOutput(h.addNode("BatchNormalization", inputs, 1, {}, "bn")->output());
  passes::inferShapes(h);
  EXPECT_FALSE(passes::foldBatchNorms(h));
}

}  // namespace
}  // namespace vdla
