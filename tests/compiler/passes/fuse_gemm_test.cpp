#include "vdla/compiler/passes/fuse_gemm.h"

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::countOp;
using testing::f32;
using testing::randomTensor;

TEST(FuseGemmBias, MatMulPlusBiasBecomesGemm) {
  for (bool bias_first : {false, true}) {
    ir::Graph g;
    ir::Value* x = g.addInput("x", f32({3, 5}));
    ir::Value* w = g.addConstant("w", randomTensor({5, 4}, 1));
    ir::Value* b = g.addConstant("b", randomTensor({4}, 2));
    ir::Value* mm = g.addNode("MatMul", {x, w}, 1, {}, "mm")->output();
    std::vector<ir::Value*> add_inputs = bias_first ? std::vector<ir::Value*>{b, mm} : std::vector<ir::Value*>{mm, b};
    g.addOutput(g.addNode("Add", add_inputs, 1, {}, "add", "", {"y"})->output());
    EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::fuseGemmBias));
    EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Gemm", 1}}));
    EXPECT_EQ(g.outputs()[0]->name(), "y");
    EXPECT_EQ(g.nodes()[0]->numInputs(), 3u);
  }
}

TEST(FuseGemmBias, GemmBiasesAccumulate) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 6}));
  ir::Value* w = g.addConstant("w", randomTensor({4, 6}, 1));
  rt::AttributeMap attrs;
  attrs.set("transB", int64_t{1});
  attrs.set("beta", 0.5);
  ir::Value* with_bias = g.addNode("Gemm", {x, w, g.addConstant("c", randomTensor({4}, 3))}, 1, attrs, "g1")->output();
  ir::Value* y1 = g.addNode("Add", {with_bias, g.addConstant("b1", randomTensor({1, 4}, 4))}, 1, {}, "add1")->output();
  ir::Value* no_bias = g.addNode("Gemm", {x, w}, 1, attrs, "g2")->output();
  ir::Value* y2 =
      g.addNode("Add", {no_bias, g.addConstant("b2", Tensor::scalar<float>(0.25f))}, 1, {}, "add2")->output();
  g.addOutput(y1);
  g.addOutput(y2);
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::fuseGemmBias));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Gemm", 2}}));
  for (ir::Node* n : g.nodes()) EXPECT_EQ(n->attrs().getFloat("beta"), 1.0);
}

TEST(FuseGemmBias, StandaloneMatMulWithConstantWeightBecomesGemm) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({3, 5}));
  g.addOutput(g.addNode("MatMul", {x, g.addConstant("w", randomTensor({5, 2}, 1))}, 1, {}, "mm")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::fuseGemmBias));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Gemm", 1}}));
}

TEST(FuseGemmBias, LeavesBatchedMatMulAndFullBiasesAlone) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 3, 5}));
  ir::Value* mm = g.addNode("MatMul", {x, g.addConstant("w", randomTensor({5, 4}, 1))}, 1, {}, "mm")->output();
  g.addOutput(g.addNode("Add", {mm, g.addConstant("b", randomTensor({4}, 2))}, 1, {}, "add")->output());
  ir::Value* y = g.addInput("y", f32({3, 5}));
  ir::Value* mm2 = g.addNode("MatMul", {y, g.addConstant("w2", randomTensor({5, 4}, 1))}, 1, {}, "mm2")->output();
  ir::Value* full = g.addConstant("full", randomTensor({3, 4}, 2));  // not a per-column bias
  g.addOutput(g.addNode("Add", {mm2, full}, 1, {}, "add2")->output());
  testing::expectPreservesSemantics(g, passes::fuseGemmBias);
  EXPECT_EQ(countOp(g, "MatMul"), 1);
  EXPECT_EQ(countOp(g, "Add"), 2);
  EXPECT_EQ(countOp(g, "Gemm"), 1);
}

}  // namespace
}  // namespace vdla
