#include "vdla/compiler/passes/remove_identities.h"

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::countOp;
using testing::f32;

TEST(RemoveIdentities, RemovesIdentityDropoutAndNoOpCast) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 5}));
  ir::Value* y = g.addNode("Relu", {x}, 1, {}, "relu")->output();
  y = g.addNode("Identity", {y}, 1, {}, "identity")->output();
  rt::AttributeMap ratio;
  ratio.set("ratio", 0.5);
  y = g.addNode("Dropout", {y}, 1, ratio, "dropout")->output();
  rt::AttributeMap to;
  to.set("to", int64_t{1});  // ONNX FLOAT
  y = g.addNode("Cast", {y}, 1, to, "cast")->output();
  ir::Node* last = g.addNode("Neg", {y}, 1, {}, "neg", "", {"result"});
  g.addOutput(last->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::removeIdentities));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Neg", 1}, {"Relu", 1}}));
  EXPECT_EQ(last->input(0), g.findNode("relu")->output());
  EXPECT_EQ(g.outputs()[0]->name(), "result");
  EXPECT_FALSE(passes::removeIdentities(g));
}

TEST(RemoveIdentities, GraphOutputKeepsItsName) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({3}));
  ir::Value* r = g.addNode("Relu", {x}, 1, {}, "relu")->output();
  g.addOutput(g.addNode("Identity", {r}, 1, {}, "id", "", {"logits"})->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::removeIdentities));
  ASSERT_EQ(g.numNodes(), 1u);
  EXPECT_EQ(g.outputs()[0]->name(), "logits");
  EXPECT_EQ(g.outputs()[0]->producer()->name(), "relu");
}

TEST(RemoveIdentities, KeepsDropoutWhoseMaskIsReadAndCastThatConverts) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({4}));
  ir::Node* dropout = g.addNode("Dropout", {x}, 2, {}, "dropout");
  rt::AttributeMap to;
  to.set("to", int64_t{1});
  ir::Value* mask = g.addNode("Cast", {dropout->output(1)}, 1, to, "mask_to_float")->output();
  g.addOutput(g.addNode("Mul", {dropout->output(0), mask}, 1, {}, "mul")->output());
  passes::inferShapes(g);
  EXPECT_FALSE(passes::removeIdentities(g));
  EXPECT_EQ(countOp(g, "Dropout"), 1);
  EXPECT_EQ(countOp(g, "Cast"), 1);
}

}  // namespace
}  // namespace vdla
