#include "vdla/compiler/passes/simplify_reshapes.h"

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::countOp;
using testing::f32;

ir::Value* reshape(ir::Graph& g, ir::Value* x, std::vector<int64_t> shape, const std::string& name) {
  ir::Value* s =
      g.addConstant(name + ".shape", Tensor::fromVector<int64_t>({static_cast<int64_t>(shape.size())}, shape));
  return g.addNode("Reshape", {x, s}, 1, {}, name)->output();
}

TEST(SimplifyReshapes, BatchKeepingReshapeBecomesFlatten) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 8, 1, 1}));
  ir::Value* r = g.addNode("Relu", {x}, 1, {}, "relu")->output();
  ir::Value* flat = reshape(g, r, {2, -1}, "view");
  ir::Value* w = g.addConstant("w", testing::randomTensor({8, 3}, 2));
  g.addOutput(g.addNode("Gemm", {flat, w}, 1, {}, "fc")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::simplifyReshapes));
  EXPECT_EQ(countOp(g, "Reshape"), 0);
  ASSERT_EQ(countOp(g, "Flatten"), 1);
  ir::Node* flatten = g.findNode("fc")->input(0)->producer();
  EXPECT_EQ(flatten->op(), "Flatten");
  EXPECT_EQ(flatten->attrs().getInt("axis"), 1);
  EXPECT_EQ(flatten->input(0), r);
  EXPECT_FALSE(passes::simplifyReshapes(g));
}

TEST(SimplifyReshapes, SqueezeOfPooledFeaturesBecomesFlatten) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({3, 5, 1, 1}));
  ir::Value* axes = g.addConstant("axes", Tensor::fromVector<int64_t>({2}, {2, 3}));
  g.addOutput(g.addNode("Squeeze", {x, axes}, 1, {}, "squeeze")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::simplifyReshapes));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Flatten", 1}}));
  EXPECT_EQ(g.outputs()[0]->name(), "squeeze_out");
}

TEST(SimplifyReshapes, ChainsCollapseAndNoOpsVanish) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 3, 4}));
  ir::Value* a = reshape(g, x, {6, 4}, "a");
  ir::Value* b = reshape(g, a, {4, 6}, "b");
  ir::Value* c = reshape(g, b, {2, 12}, "c");
  ir::Value* d = reshape(g, c, {3, 8}, "d");  // not a flatten of [2,3,4]
  ir::Value* e = reshape(g, d, {2, 3, 4}, "e");
  g.addOutput(g.addNode("Relu", {e}, 1, {}, "relu")->output());
  g.addOutput(g.addNode("Neg", {d}, 1, {}, "neg")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::simplifyReshapes));
  // e reshapes x back to its own shape: gone. d reads x directly.
  EXPECT_EQ(g.findNode("relu")->input(0), x);
  ir::Node* d_node = g.findNode("neg")->input(0)->producer();
  EXPECT_EQ(d_node->op(), "Reshape");
  EXPECT_EQ(d_node->input(0), x);
  EXPECT_EQ(countOp(g, "Reshape"), 1);
}

TEST(SimplifyReshapes, KeepsGenuineReshape) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 3, 4}));
  g.addOutput(reshape(g, x, {4, 3, 2}, "r"));
  passes::inferShapes(g);
  EXPECT_FALSE(passes::simplifyReshapes(g));
  EXPECT_EQ(countOp(g, "Reshape"), 1);
}

// foldCancellingReshapes: the quantiser's Flatten and the Reshape back to 4-D
// around a dense layer vanish; a reshape that changes the shape keeps its
// name and form, and one that is a graph output stays.
TEST(FoldCancellingReshapes, FlattenAndReshapeBackVanishOthersStay) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 8, 1, 1}));
  rt::AttributeMap axis;
  axis.set("axis", int64_t{1});
  ir::Value* flat = g.addNode("Flatten", {x}, 1, axis, "flatten")->output();
  ir::Value* back = reshape(g, flat, {1, 8, 1, 1}, "to_nchw");
  ir::Value* relu = g.addNode("Relu", {back}, 1, {}, "relu")->output();
  ir::Value* rows = reshape(g, relu, {1, 8}, "to_rows");
  g.addOutput(g.addNode("Neg", {rows}, 1, {}, "neg")->output());
  g.addOutput(reshape(g, x, {1, 8, 1, 1}, "same_as_output"));
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::foldCancellingReshapes));
  EXPECT_EQ(g.findNode("relu")->input(0), x);
  EXPECT_EQ(g.findNode("flatten"), nullptr);
  EXPECT_EQ(g.findNode("to_nchw"), nullptr);
  ASSERT_NE(g.findNode("to_rows"), nullptr);
  EXPECT_EQ(g.findNode("to_rows")->op(), "Reshape");
  EXPECT_NE(g.findNode("same_as_output"), nullptr) << "a graph output is kept";
  EXPECT_FALSE(passes::foldCancellingReshapes(g));
}

}  // namespace
}  // namespace vdla
