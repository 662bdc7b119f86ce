#include "vdla/compiler/passes/fuse_activations.h"

#include <limits>

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::countOp;
using testing::f32;
using testing::randomTensor;

ir::Node* addConv(ir::Graph& g, ir::Value* x, const std::string& name, int64_t in_channels = 2) {
  rt::AttributeMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  return g.addNode("Conv",
                   {x, g.addConstant(name + ".w", randomTensor({4, in_channels, 3, 3}, 3)),
                    g.addConstant(name + ".b", randomTensor({4}, 4))},
                   1, attrs, name);
}

TEST(FuseActivations, ConvRelu) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 2, 5, 5}));
  ir::Node* conv = addConv(g, x, "conv");
  g.addOutput(g.addNode("Relu", {conv->output()}, 1, {}, "relu", "", {"y"})->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::fuseActivations));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Conv", 1}}));
  EXPECT_EQ(conv->attrs().getString("activation"), "Relu");
  EXPECT_EQ(g.outputs()[0]->name(), "y");
  EXPECT_FALSE(passes::fuseActivations(g));
}

TEST(FuseActivations, ConvClipAsInputsAndAsAttributes) {
  for (bool as_inputs : {true, false}) {
    ir::Graph g;
    ir::Value* x = g.addInput("x", f32({1, 2, 5, 5}));
    ir::Node* conv = addConv(g, x, "conv");
    ir::Node* clip;
    if (as_inputs) {
      clip = g.addNode("Clip",
                       {conv->output(), g.addConstant("lo", Tensor::scalar<float>(0)),
                        g.addConstant("hi", Tensor::scalar<float>(0.5f))},
                       1, {}, "relu6");
    } else {
      rt::AttributeMap bounds;
      bounds.set("min", 0.0);
      bounds.set("max", 0.5);
      clip = g.addNode("Clip", {conv->output()}, 1, bounds, "relu6");
    }
    g.addOutput(clip->output());
    EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::fuseActivations));
    EXPECT_EQ(countOp(g, "Clip"), 0);
    EXPECT_EQ(conv->attrs().getString("activation"), "Clip");
    EXPECT_EQ(conv->attrs().getFloat("activation_min"), 0.0);
    EXPECT_EQ(conv->attrs().getFloat("activation_max"), 0.5);
    EXPECT_EQ(g.findValue("lo"), nullptr);
  }
}

TEST(FuseActivations, OneSidedClipAndClipAsRelu) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 2, 5, 5}));
  ir::Node* c1 = addConv(g, x, "c1");
  ir::Value* y =
      g.addNode("Clip", {c1->output(), g.addConstant("zero", Tensor::scalar<float>(0))}, 1, {}, "clip1")->output();
  ir::Node* c2 = addConv(g, y, "c2", 4);
  ir::Value* z =
      g.addNode("Clip", {c2->output(), nullptr, g.addConstant("hi", Tensor::scalar<float>(0.1f))}, 1, {}, "clip2")
          ->output();
  g.addOutput(z);
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::fuseActivations));
  EXPECT_EQ(c1->attrs().getString("activation"), "Relu");  // Clip(0, +inf) is a Relu
  EXPECT_EQ(c2->attrs().getString("activation"), "Clip");
  EXPECT_EQ(c2->attrs().getFloat("activation_min"), -std::numeric_limits<double>::infinity());
}

TEST(FuseActivations, AddReluAndGemmRelu) {
  ir::Graph g;
  ir::Value* a = g.addInput("a", f32({2, 6}));
  ir::Value* b = g.addInput("b", f32({2, 6}));
  ir::Node* add = g.addNode("Add", {a, b}, 1, {}, "add");
  ir::Value* r = g.addNode("Relu", {add->output()}, 1, {}, "relu1")->output();
  rt::AttributeMap t;
  t.set("transB", int64_t{1});
  ir::Node* gemm = g.addNode(
      "Gemm", {r, g.addConstant("w", randomTensor({3, 6}, 1)), g.addConstant("c", randomTensor({3}, 2))}, 1, t, "fc");
  g.addOutput(g.addNode("Relu", {gemm->output()}, 1, {}, "relu2")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::fuseActivations));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"Add", 1}, {"Gemm", 1}}));
  EXPECT_EQ(add->attrs().getString("activation"), "Relu");
  EXPECT_EQ(gemm->attrs().getString("activation"), "Relu");
}

TEST(FuseActivations, LeavesSharedOutputsVariableBoundsAndOtherProducers) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 2, 5, 5}));
  ir::Value* hi = g.addInput("hi", f32({}));
  ir::Node* conv = addConv(g, x, "conv");
  ir::Value* r = g.addNode("Relu", {conv->output()}, 1, {}, "relu")->output();
  g.addOutput(g.addNode("Add", {r, conv->output()}, 1, {}, "add")->output());  // conv read twice
  ir::Node* conv2 = addConv(g, x, "conv2");
  g.addOutput(g.addNode("Clip", {conv2->output(), nullptr, hi}, 1, {}, "clip")->output());  // variable bound
  ir::Value* m = g.addNode("Mul", {x, x}, 1, {}, "mul")->output();
  g.addOutput(g.addNode("Relu", {m}, 1, {}, "relu_mul")->output());  // Mul takes no activation
  passes::inferShapes(g);
  EXPECT_FALSE(passes::fuseActivations(g));
  EXPECT_FALSE(conv->attrs().has("activation"));
  EXPECT_FALSE(conv2->attrs().has("activation"));
}

}  // namespace
}  // namespace vdla
