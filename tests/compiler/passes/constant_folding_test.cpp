#include "vdla/compiler/passes/constant_folding.h"

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::countOp;
using testing::f32;

TEST(ConstantFolding, FoldsConstantSubgraphAndKeepsTheRest) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 3}));
  ir::Value* a = g.addConstant("a", Tensor::fromVector<float>({3}, {1, 2, 3}));
  ir::Value* b = g.addConstant("b", Tensor::fromVector<float>({3}, {10, 20, 30}));
  ir::Value* sum = g.addNode("Add", {a, b}, 1, {}, "sum")->output();
  ir::Value* scaled = g.addNode("Mul", {sum, b}, 1, {}, "scaled")->output();
  g.addOutput(g.addNode("Add", {x, scaled}, 1, {}, "out")->output());
  bool changed = testing::expectPreservesSemantics(g, [](ir::Graph& gr) { return passes::foldConstants(gr); });
  EXPECT_TRUE(changed);
  ASSERT_EQ(g.numNodes(), 1u);
  ir::Node* out = g.nodes()[0];
  ASSERT_TRUE(out->input(1)->isConstant());
  EXPECT_EQ(out->input(1)->constant().toVector<float>(), (std::vector<float>{110, 440, 990}));
  EXPECT_EQ(out->input(1)->name(), "scaled_out");  // the constant keeps the folded value's name
  EXPECT_EQ(g.findValue("a"), nullptr);            // inputs of folded nodes die with them
  EXPECT_FALSE(passes::foldConstants(g));
}

// What torch.onnx exports for x.view(x.size(0), -1): a Shape/Gather/Unsqueeze/
// Concat chain computing the target shape. Plain shape inference cannot type
// the Reshape before the chain has folded; folding types it as it goes.
TEST(ConstantFolding, FoldsPyTorchFlattenShapeChain) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 4, 3, 3}));
  ir::Value* r = g.addNode("Relu", {x}, 1, {}, "relu")->output();
  ir::Value* shape = g.addNode("Shape", {r}, 1, {}, "shape")->output();
  ir::Value* zero = g.addConstant("zero", Tensor::scalar<int64_t>(0));
  rt::AttributeMap gather_attrs;
  gather_attrs.set("axis", int64_t{0});
  ir::Value* batch = g.addNode("Gather", {shape, zero}, 1, gather_attrs, "gather")->output();
  ir::Value* axes = g.addConstant("axes", Tensor::fromVector<int64_t>({1}, {0}));
  ir::Value* batch1 = g.addNode("Unsqueeze", {batch, axes}, 1, {}, "unsqueeze")->output();
  ir::Value* minus_one = g.addConstant("minus_one", Tensor::fromVector<int64_t>({1}, {-1}));
  rt::AttributeMap concat_attrs;
  concat_attrs.set("axis", int64_t{0});
  ir::Value* target = g.addNode("Concat", {batch1, minus_one}, 1, concat_attrs, "concat")->output();
  ir::Node* reshape = g.addNode("Reshape", {r, target}, 1, {}, "reshape");
  g.addOutput(reshape->output());

  EXPECT_TRUE(passes::foldConstants(g));
  EXPECT_EQ(g.numNodes(), 2u);
  ASSERT_TRUE(reshape->input(1)->isConstant());
  EXPECT_EQ(reshape->input(1)->constant().toVector<int64_t>(), (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(reshape->output()->type().shape, (rt::Shape{2, 36}));
  ir::verifyGraphOrThrow(g);
  Tensor in = testing::randomTensor({2, 4, 3, 3}, 5);
  Tensor out = runReference(g, {in})[0];
  for (int64_t i = 0; i < in.numElements(); ++i) EXPECT_EQ(out.data<float>()[i], std::max(0.0f, in.data<float>()[i]));
}

TEST(ConstantFolding, FoldsShapeAndSizeFromStaticTypes) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({1, 8, 5}));
  rt::AttributeMap attrs;
  attrs.set("start", int64_t{1});
  ir::Value* s = g.addNode("Shape", {x}, 1, attrs, "shape")->output();
  g.addOutput(s);
  EXPECT_TRUE(passes::foldConstants(g));
  EXPECT_EQ(g.numNodes(), 0u);
  ASSERT_TRUE(g.outputs()[0]->isConstant());
  EXPECT_EQ(g.outputs()[0]->name(), "shape_out");
  EXPECT_EQ(g.outputs()[0]->constant().toVector<int64_t>(), (std::vector<int64_t>{8, 5}));
}

TEST(ConstantFolding, SizeLimitKeepsSharedLargeConstantsFromDuplicating) {
  auto build = [](ir::Graph& g, bool shared) {
    ir::Value* x = g.addInput("x", f32({1000}));
    ir::Value* c = g.addConstant("c", testing::randomTensor({1000}, 1));
    ir::Value* neg = g.addNode("Neg", {c}, 1, {}, "neg")->output();
    ir::Value* y = g.addNode("Add", {x, neg}, 1, {}, "add")->output();
    if (shared) y = g.addNode("Mul", {y, c}, 1, {}, "mul")->output();
    g.addOutput(y);
  };
  passes::ConstantFoldingOptions options;
  options.max_folded_bytes = 100;
  {
    ir::Graph g;
    build(g, /*shared=*/true);
    EXPECT_FALSE(passes::foldConstants(g, options));  // would hold c twice
    EXPECT_EQ(countOp(g, "Neg"), 1);
  }
  {
    ir::Graph g;
    build(g, /*shared=*/false);
    size_t bytes = g.constantBytes();
    EXPECT_TRUE(
        testing::expectPreservesSemantics(g, [&](ir::Graph& gr) { return passes::foldConstants(gr, options); }));
    EXPECT_EQ(countOp(g, "Neg"), 0);  // c dies with the fold: no growth
    EXPECT_EQ(g.constantBytes(), bytes);
  }
}

TEST(ConstantFolding, LeavesDequantizeLinearOfWeightsAlone) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({4}));
  ir::Value* q = g.addConstant("wq", Tensor::fromVector<int8_t>({4}, {1, -2, 3, -4}));
  ir::Value* scale = g.addConstant("scale", Tensor::scalar<float>(0.5f));
  ir::Value* zp = g.addConstant("zp", Tensor::scalar<int8_t>(0));
  ir::Value* w = g.addNode("DequantizeLinear", {q, scale, zp}, 1, {}, "dq")->output();
  g.addOutput(g.addNode("Mul", {x, w}, 1, {}, "mul")->output());
  EXPECT_FALSE(passes::foldConstants(g));
  EXPECT_EQ(countOp(g, "DequantizeLinear"), 1);
}

TEST(ConstantFolding, ErrorsNameTheNode) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 3}));
  ir::Value* y = g.addInput("y", f32({4}));
  g.addOutput(g.addNode("Add", {x, y}, 1, {}, "bad_add")->output());
  try {
    passes::foldConstants(g);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("bad_add"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla
