#include "vdla/compiler/passes/dead_code_elimination.h"

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::f32;

TEST(DeadCodeElimination, RemovesUnreachableNodesAndUnusedConstants) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({4}));
  ir::Value* unused_input = g.addInput("unused", f32({4}));
  ir::Value* c = g.addConstant("c", Tensor::fromVector<float>({4}, {1, 2, 3, 4}));
  g.addConstant("orphan", Tensor::fromVector<float>({2}, {5, 6}));
  ir::Value* live = g.addNode("Add", {x, c}, 1, {}, "live")->output();
  ir::Value* dead1 = g.addNode("Mul", {live, unused_input}, 1, {}, "dead1")->output();
  g.addNode("Neg", {dead1}, 1, {}, "dead2");
  ir::Node* multi = g.addNode("Dropout", {live}, 2, {}, "dropout");  // only the mask is unused
  g.addOutput(g.addNode("Relu", {multi->output(0)}, 1, {}, "relu")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::eliminateDeadCode));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Add", 1}, {"Dropout", 1}, {"Relu", 1}}));
  EXPECT_EQ(g.findValue("orphan"), nullptr);
  EXPECT_NE(g.findValue("c"), nullptr);
  EXPECT_EQ(g.inputs().size(), 2u);  // the signature stays
  EXPECT_FALSE(passes::eliminateDeadCode(g));
}

TEST(DeadCodeElimination, GraphOfOnlyDeadNodes) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({4}));
  ir::Value* y = g.addNode("Relu", {x}, 1, {}, "r1")->output();
  g.addNode("Relu", {y}, 1, {}, "r2");
  g.addOutput(x);
  EXPECT_TRUE(passes::eliminateDeadCode(g));
  EXPECT_EQ(g.numNodes(), 0u);
}

}  // namespace
}  // namespace vdla
