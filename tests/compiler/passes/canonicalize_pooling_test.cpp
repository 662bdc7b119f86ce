#include "vdla/compiler/passes/canonicalize_pooling.h"

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::countOp;
using testing::f32;

TEST(CanonicalizePooling, SpatialReduceMeanBecomesGlobalAveragePool) {
  for (int64_t keepdims : {0, 1}) {
    for (bool axes_as_input : {false, true}) {
      ir::Graph g;
      ir::Value* x = g.addInput("x", f32({2, 5, 4, 3}));
      rt::AttributeMap attrs;
      attrs.set("keepdims", keepdims);
      std::vector<ir::Value*> inputs = {x};
      if (axes_as_input)
        inputs.push_back(g.addConstant("axes", Tensor::fromVector<int64_t>({2}, {-1, 2})));
      else
        attrs.set("axes", std::vector<int64_t>{2, 3});
      g.addOutput(g.addNode("ReduceMean", inputs, 1, attrs, "mean", "", {"features"})->output());
      EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::canonicalizePooling));
      std::map<std::string, int> want = {{"GlobalAveragePool", 1}};
      if (keepdims == 0) want["Flatten"] = 1;
      EXPECT_EQ(testing::opHistogram(g), want);
      EXPECT_EQ(g.outputs()[0]->name(), "features");
      EXPECT_EQ(g.findValue("axes"), nullptr);
    }
  }
}

TEST(CanonicalizePooling, WholeInputAveragePoolBecomesGlobalAveragePool) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 4, 7, 7}));
  rt::AttributeMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{7, 7});
  attrs.set("strides", std::vector<int64_t>{1, 1});
  g.addOutput(g.addNode("AveragePool", {x}, 1, attrs, "avgpool")->output());
  EXPECT_TRUE(testing::expectPreservesSemantics(g, passes::canonicalizePooling));
  EXPECT_EQ(testing::opHistogram(g), (std::map<std::string, int>{{"GlobalAveragePool", 1}}));
}

TEST(CanonicalizePooling, LeavesOtherReductionsAndWindows) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 5, 4, 4}));
  rt::AttributeMap channel_mean;
  channel_mean.set("axes", std::vector<int64_t>{1});
  g.addOutput(g.addNode("ReduceMean", {x}, 1, channel_mean, "channel_mean")->output());
  rt::AttributeMap window;
  window.set("kernel_shape", std::vector<int64_t>{2, 2});
  window.set("strides", std::vector<int64_t>{2, 2});
  g.addOutput(g.addNode("AveragePool", {x}, 1, window, "pool2x2")->output());
  rt::AttributeMap padded;
  padded.set("kernel_shape", std::vector<int64_t>{4, 4});
  padded.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  padded.set("strides", std::vector<int64_t>{8, 8});
  g.addOutput(g.addNode("AveragePool", {x}, 1, padded, "padded")->output());
  passes::inferShapes(g);
  EXPECT_FALSE(passes::canonicalizePooling(g));
  EXPECT_EQ(countOp(g, "GlobalAveragePool"), 0);
}

}  // namespace
}  // namespace vdla
