// The importer on valid models: constants, inputs, attributes, dependency
// order, and the per-opset normalisation into the IR's one form per operator.
#include <gtest/gtest.h>

#include <algorithm>

#include "model_builder.h"
#include "vdla/compiler/ir/printer.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/frontend/onnx_importer.h"

namespace vdla::frontend {
namespace {

using testing::ModelBuilder;
using testing::setFloat;
using testing::setInt;
using testing::setInts;
using testing::setString;

std::unique_ptr<ir::Graph> import(const ModelBuilder& b, const OnnxImportOptions& options = {}) {
  return importOnnxBytes(b.bytes(), "test.onnx", options);
}

const ir::Node* onlyNode(const ir::Graph& g, const std::string& op) {
  const ir::Node* found = nullptr;
  for (const ir::Node* n : g.nodes())
    if (n->op() == op) {
      EXPECT_EQ(found, nullptr) << "two " << op << " nodes";
      found = n;
    }
  EXPECT_NE(found, nullptr) << "no " << op << " node in\n" << ir::graphToString(g);
  return found;
}

TEST(OnnxImporter, AddReluWithInitializerRunsOnReference) {
  ModelBuilder b;
  b.input("x", {1, 3});
  b.floatInitializer("bias", {3}, {1.0f, -2.0f, 0.5f});
  b.node("Add", {"x", "bias"}, {"sum"}, "add0");
  b.node("Relu", {"sum"}, {"y"}, "relu0");
  b.output("y");
  auto g = import(b);
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->inputs()[0]->type().toString(), "f32[1,3]");
  ASSERT_EQ(g->constants().size(), 1u);
  EXPECT_EQ(g->constants()[0]->name(), "bias");
  EXPECT_EQ(g->numNodes(), 2u);
  EXPECT_NE(g->findNode("relu0"), nullptr);
  auto out = runReference(*g, {rt::Tensor::fromVector<float>({1, 3}, {0.5f, 1.0f, -1.0f})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].toVector<float>(), (std::vector<float>{1.5f, 0.0f, 0.0f}));
}

TEST(OnnxImporter, SymbolicDimsDefaultToOneOrTakeGivenValues) {
  ModelBuilder b;
  b.input("x", {"N", 3, "unnamed_is_param"});
  b.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->clear_dim_param();
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  EXPECT_EQ(import(b)->inputs()[0]->type().toString(), "f32[1,3,1]");
  OnnxImportOptions options;
  options.dim_values["N"] = 4;
  EXPECT_EQ(import(b, options)->inputs()[0]->type().toString(), "f32[4,3,1]");
  options.input_shapes["x"] = {2, 5};
  EXPECT_EQ(import(b, options)->inputs()[0]->type().toString(), "f32[2,5]");
}

TEST(OnnxImporter, InitializerListedAsInputStaysConstant) {
  ModelBuilder b;
  b.input("x", {2});
  b.input("w", {2});  // old exporters list initializers as inputs too
  b.floatInitializer("w", {2}, {3.0f, 4.0f});
  b.node("Mul", {"x", "w"}, {"y"});
  b.output("y");
  auto g = import(b);
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_EQ(g->inputs()[0]->name(), "x");
  ASSERT_NE(g->findValue("w"), nullptr);
  EXPECT_TRUE(g->findValue("w")->isConstant());
}

TEST(OnnxImporter, ConstantNodesBecomeConstants) {
  ModelBuilder b;
  b.input("x", {3});
  auto& c = b.node("Constant", {}, {"c"});
  auto* a = c.add_attribute();
  a->set_name("value_floats");
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float f : {1.0f, 2.0f, 3.0f}) a->add_floats(f);
  b.node("Sub", {"x", "c"}, {"y"});
  b.output("y");
  auto g = import(b);
  EXPECT_EQ(g->numNodes(), 1u);
  ASSERT_NE(g->findValue("c"), nullptr);
  EXPECT_EQ(g->findValue("c")->constant().toVector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST(OnnxImporter, InputValuesBindInputsAsConstants) {
  ModelBuilder b;
  b.input("x", {3});
  b.input("y", {3});
  b.node("Add", {"x", "y"}, {"z"});
  b.output("z");
  OnnxImportOptions options;
  options.input_values["y"] = rt::Tensor::fromVector<float>({3}, {1, 1, 1});
  auto g = import(b, options);
  ASSERT_EQ(g->inputs().size(), 1u);
  EXPECT_TRUE(g->findValue("y")->isConstant());
}

TEST(OnnxImporter, UnsortedNodesAreImportedInDependencyOrder) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"a"}, {"y"}, "second");
  b.node("Neg", {"x"}, {"a"}, "first");
  b.output("y");
  auto g = import(b);
  auto nodes = g->nodes();
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0]->name(), "first");
  EXPECT_EQ(nodes[1]->name(), "second");
}

TEST(OnnxImporter, UnnamedAndCollidingNodesGetUniqueNames) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"a"});
  b.node("Relu", {"a"}, {"b"});
  b.node("Relu", {"b"}, {"y"}, "x");  // same name as a value
  b.output("y");
  auto g = import(b);
  std::vector<std::string> names;
  for (const ir::Node* n : g->nodes()) names.push_back(n->name());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::unique(names.begin(), names.end()), names.end());
}

TEST(OnnxImporter, AcceptsOpsetsSevenToTwentyOne) {
  for (int64_t opset : {7, 9, 13, 17, 21}) {
    ModelBuilder b(opset);
    b.input("x", {2});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    EXPECT_NO_THROW(import(b)) << "opset " << opset;
  }
}

TEST(OnnxImporter, SupportedOperatorsAreSortedAndIncludeTheCoreSet) {
  auto ops = supportedOnnxOperators();
  EXPECT_TRUE(std::is_sorted(ops.begin(), ops.end()));
  for (const char* op : {"Conv", "BatchNormalization", "Constant", "Gemm", "QLinearConv", "com.microsoft.QLinearAdd",
                         "com.microsoft.QLinearGlobalAveragePool", "Clip", "Pad", "Squeeze"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
}

// ---- per-opset normalisation (needs the operators' shape inference) -----------

TEST(OnnxNormalize, ClipAttributesBeforeOpset11BecomeConstantInputs) {
  ModelBuilder b(10);
  b.input("x", {4});
  auto& n = b.node("Clip", {"x"}, {"y"});
  setFloat(n, "min", -1.0f);
  setFloat(n, "max", 2.0f);
  b.output("y");
  auto g = import(b);
  const ir::Node* clip = onlyNode(*g, "Clip");
  ASSERT_NE(clip, nullptr);
  EXPECT_TRUE(clip->attrs().empty());
  ASSERT_EQ(clip->numInputs(), 3u);
  EXPECT_FLOAT_EQ(clip->input(1)->constant().toVector<float>()[0], -1.0f);
  EXPECT_FLOAT_EQ(clip->input(2)->constant().toVector<float>()[0], 2.0f);
  auto out = runReference(*g, {rt::Tensor::fromVector<float>({4}, {-5, 0, 1, 5})});
  EXPECT_EQ(out[0].toVector<float>(), (std::vector<float>{-1, 0, 1, 2}));
}

TEST(OnnxNormalize, ClipWithOnlyMaxLeavesMinAbsent) {
  ModelBuilder b(6 + 3);
  b.input("x", {2});
  setFloat(b.node("Clip", {"x"}, {"y"}), "max", 0.5f);
  b.output("y");
  auto g = import(b);
  const ir::Node* clip = onlyNode(*g, "Clip");
  ASSERT_NE(clip, nullptr);
  ASSERT_EQ(clip->numInputs(), 3u);
  EXPECT_EQ(clip->input(1), nullptr);
  EXPECT_TRUE(clip->input(2)->isConstant());
}

TEST(OnnxNormalize, PadAttributesBeforeOpset11BecomeConstantInputs) {
  ModelBuilder b(10);
  b.input("x", {1, 2});
  auto& n = b.node("Pad", {"x"}, {"y"});
  setInts(n, "pads", {0, 1, 0, 2});
  setFloat(n, "value", 7.0f);
  b.output("y");
  auto g = import(b);
  const ir::Node* pad = onlyNode(*g, "Pad");
  ASSERT_NE(pad, nullptr);
  EXPECT_FALSE(pad->attrs().has("pads"));
  EXPECT_FALSE(pad->attrs().has("value"));
  EXPECT_EQ(pad->input(1)->constant().toVector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 2}));
  EXPECT_EQ(pad->output()->type().toString(), "f32[1,5]");
  auto out = runReference(*g, {rt::Tensor::fromVector<float>({1, 2}, {1, 2})});
  EXPECT_EQ(out[0].toVector<float>(), (std::vector<float>{7, 1, 2, 7, 7}));
}

TEST(OnnxNormalize, PadAxesOfOpset18ExpandToEveryAxis) {
  ModelBuilder b(18);
  b.input("x", {2, 3});
  b.int64Initializer("pads", {2}, {1, 1});
  b.int64Initializer("axes", {1}, {-1});
  b.node("Pad", {"x", "pads", "", "axes"}, {"y"});
  b.output("y");
  auto g = import(b);
  const ir::Node* pad = onlyNode(*g, "Pad");
  ASSERT_NE(pad, nullptr);
  EXPECT_EQ(pad->numInputs(), 2u);
  EXPECT_EQ(pad->input(1)->constant().toVector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(pad->output()->type().toString(), "f32[2,5]");
}

TEST(OnnxNormalize, SqueezeAndUnsqueezeAxesAttributesBecomeInputs) {
  ModelBuilder b(11);
  b.input("x", {1, 3, 1});
  setInts(b.node("Squeeze", {"x"}, {"s"}), "axes", {0});
  setInts(b.node("Unsqueeze", {"s"}, {"y"}), "axes", {0, 3});
  b.output("y");
  auto g = import(b);
  const ir::Node* sq = onlyNode(*g, "Squeeze");
  const ir::Node* unsq = onlyNode(*g, "Unsqueeze");
  ASSERT_TRUE(sq && unsq);
  EXPECT_FALSE(sq->attrs().has("axes"));
  EXPECT_EQ(sq->input(1)->constant().toVector<int64_t>(), (std::vector<int64_t>{0}));
  EXPECT_EQ(unsq->input(1)->constant().toVector<int64_t>(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(g->outputs()[0]->type().toString(), "f32[1,3,1,1]");
}

TEST(OnnxNormalize, ReduceMeanAxesAttributeBecomesInput) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  auto& n = b.node("ReduceMean", {"x"}, {"y"});
  setInts(n, "axes", {1});
  setInt(n, "keepdims", 0);
  b.output("y");
  auto g = import(b);
  const ir::Node* r = onlyNode(*g, "ReduceMean");
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->attrs().has("axes"));
  EXPECT_EQ(r->input(1)->constant().toVector<int64_t>(), (std::vector<int64_t>{1}));
  EXPECT_EQ(r->output()->type().toString(), "f32[2]");
}

TEST(OnnxNormalize, SoftmaxBeforeOpset13IsLegacy2d) {
  ModelBuilder b(11);
  b.input("x", {2, 3, 4});
  b.node("Softmax", {"x"}, {"y"});
  b.output("y");
  auto g = import(b);
  const ir::Node* s = onlyNode(*g, "Softmax");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->attrs().getInt("legacy_2d"), 1);
  EXPECT_EQ(s->attrs().getInt("axis"), 1);

  ModelBuilder b13(13);
  b13.input("x", {2, 3});
  b13.node("Softmax", {"x"}, {"y"});
  b13.output("y");
  auto g13 = import(b13);
  EXPECT_FALSE(onlyNode(*g13, "Softmax")->attrs().has("legacy_2d"));
  EXPECT_EQ(onlyNode(*g13, "Softmax")->attrs().getInt("axis"), -1);
}

TEST(OnnxNormalize, BatchNormDropsTrainingAttributes) {
  ModelBuilder b(9);
  b.input("x", {1, 2, 2, 2});
  for (const char* name : {"s", "bias", "mean", "var"}) b.floatInitializer(name, {2}, {1.0f, 1.0f});
  auto& n = b.node("BatchNormalization", {"x", "s", "bias", "mean", "var"}, {"y"});
  setFloat(n, "epsilon", 1e-3f);
  setFloat(n, "momentum", 0.9f);
  b.output("y");
  auto g = import(b);
  const ir::Node* bn = onlyNode(*g, "BatchNormalization");
  ASSERT_NE(bn, nullptr);
  EXPECT_FALSE(bn->attrs().has("momentum"));
  EXPECT_NEAR(bn->attrs().getFloat("epsilon"), 1e-3, 1e-9);
  EXPECT_EQ(bn->numOutputs(), 1u);
}

TEST(OnnxNormalize, DropoutKeepsOnlyItsDataInput) {
  ModelBuilder b(10);
  b.input("x", {4});
  setFloat(b.node("Dropout", {"x"}, {"y"}), "ratio", 0.3f);
  b.output("y");
  auto g = import(b);
  const ir::Node* d = onlyNode(*g, "Dropout");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->attrs().empty());
  EXPECT_EQ(d->numInputs(), 1u);
  auto out = runReference(*g, {rt::Tensor::fromVector<float>({4}, {1, 2, 3, 4})});
  EXPECT_EQ(out[0].toVector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

// Training mode with ratio 0 (as exporters write attention dropouts of
// probability 0) drops nothing: the identity.
TEST(OnnxNormalize, TrainingDropoutWithRatioZeroIsTheIdentity) {
  ModelBuilder b(13);
  b.input("x", {4});
  b.floatInitializer("r", {}, {0.0f});
  onnx::TensorProto* t = b.graph().add_initializer();
  t->set_name("train");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  b.node("Dropout", {"x", "r", "train"}, {"y"});
  b.output("y");
  auto g = import(b);
  const ir::Node* d = onlyNode(*g, "Dropout");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->numInputs(), 1u);
  auto out = runReference(*g, {rt::Tensor::fromVector<float>({4}, {1, -2, 3, 4})});
  EXPECT_EQ(out[0].toVector<float>(), (std::vector<float>{1, -2, 3, 4}));
}

TEST(OnnxNormalize, AutoPadSameUpperBecomesExplicitPads) {
  ModelBuilder b(11);
  b.input("x", {1, 1, 5, 5});
  b.floatInitializer("w", {1, 1, 2, 2}, {1, 1, 1, 1});
  auto& n = b.node("Conv", {"x", "w"}, {"y"});
  setString(n, "auto_pad", "SAME_UPPER");
  setInts(n, "strides", {2, 2});
  b.output("y");
  auto g = import(b);
  const ir::Node* conv = onlyNode(*g, "Conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_FALSE(conv->attrs().has("auto_pad"));
  // out = ceil(5/2) = 3; total pad = (3-1)*2 + 2 - 5 = 1, the extra at the end.
  EXPECT_EQ(conv->attrs().getInts("pads"), (std::vector<int64_t>{0, 0, 1, 1}));
  EXPECT_EQ(conv->output()->type().toString(), "f32[1,1,3,3]");
}

TEST(OnnxNormalize, AutoPadSameLowerPutsTheExtraPadFirst) {
  ModelBuilder b(12);
  b.input("x", {1, 1, 4, 4});
  auto& n = b.node("MaxPool", {"x"}, {"y"});
  setString(n, "auto_pad", "SAME_LOWER");
  setInts(n, "kernel_shape", {2, 2});
  b.output("y");
  auto g = import(b);
  const ir::Node* pool = onlyNode(*g, "MaxPool");
  ASSERT_NE(pool, nullptr);
  const std::vector<int64_t>& pads = pool->attrs().getInts("pads");
  ASSERT_EQ(pads.size(), 4u);
  EXPECT_EQ(pads[0], 1);
  EXPECT_EQ(pads[1], 1);
  EXPECT_EQ(pads[2], 0);
  EXPECT_EQ(pads[3], 0);
  EXPECT_EQ(pool->output()->type().toString(), "f32[1,1,4,4]");
}

TEST(OnnxNormalize, AutoPadValidMeansNoPadding) {
  ModelBuilder b(11);
  b.input("x", {1, 1, 5, 5});
  auto& n = b.node("AveragePool", {"x"}, {"y"});
  setString(n, "auto_pad", "VALID");
  setInts(n, "kernel_shape", {3, 3});
  setInts(n, "strides", {2, 2});
  b.output("y");
  auto g = import(b);
  EXPECT_EQ(onlyNode(*g, "AveragePool")->attrs().getInts("pads"), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(g->outputs()[0]->type().toString(), "f32[1,1,2,2]");
}

TEST(OnnxNormalize, AutoPadWithZeroPadsIsAccepted) {
  ModelBuilder b(11);
  b.input("x", {1, 1, 4, 4});
  auto& n = b.node("MaxPool", {"x"}, {"y"});
  setString(n, "auto_pad", "VALID");
  setInts(n, "pads", {0, 0, 0, 0});
  setInts(n, "kernel_shape", {2, 2});
  b.output("y");
  EXPECT_EQ(import(b)->outputs()[0]->type().toString(), "f32[1,1,3,3]");
  setInts(*b.graph().mutable_node(0), "pads_typo", {1});
  EXPECT_THROW(import(b), OnnxImportError);
}

TEST(OnnxNormalize, CastToSupportedTypeImports) {
  ModelBuilder b(13);
  b.input("x", {3});
  setInt(b.node("Cast", {"x"}, {"y"}), "to", onnx::TensorProto::INT32);
  b.output("y");
  auto g = import(b);
  EXPECT_EQ(g->outputs()[0]->type().toString(), "i32[3]");
  auto out = runReference(*g, {rt::Tensor::fromVector<float>({3}, {1.7f, -2.2f, 3.0f})});
  EXPECT_EQ(out[0].toVector<int32_t>(), (std::vector<int32_t>{1, -2, 3}));
}

}  // namespace
}  // namespace vdla::frontend
