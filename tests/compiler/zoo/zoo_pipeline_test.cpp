// The standard pipeline on every zoo model: verifies, reaches the clean form
// the backends expect, and does not change the logits.
#include <gtest/gtest.h>

#include <chrono>

#include "passes/pass_test_util.h"
#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/zoo/model_zoo.h"

namespace vdla {
namespace {

using testing::countOp;

int countActivation(const ir::Graph& g, const std::string& op, const std::string& activation) {
  int n = 0;
  for (const ir::Node* node : g.nodes())
    n += node->op() == op && node->attrs().getString("activation", "") == activation;
  return n;
}

TEST(ZooPipeline, ResNet18BecomesTheCleanGraph) {
  auto g = zoo::buildModel("resnet18");
  auto start = std::chrono::steady_clock::now();
  runStandardPipeline(*g);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("runStandardPipeline on resnet18: %.1f ms\n", seconds * 1e3);
  RecordProperty("resnet18_pipeline_ms", std::to_string(seconds * 1e3));
  EXPECT_EQ(testing::opHistogram(*g),
            (std::map<std::string, int>{
                {"Conv", 20}, {"Add", 8}, {"MaxPool", 1}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}}));
  EXPECT_EQ(countActivation(*g, "Conv", "Relu"), 9);  // the stem and every block's first conv
  EXPECT_EQ(countActivation(*g, "Add", "Relu"), 8);   // every residual join
  for (const ir::Node* n : g->nodes())
    if (n->op() == "Conv") {
      EXPECT_EQ(n->numInputs(), 3u) << n->name();  // BN became the bias
    }
  EXPECT_EQ(g->outputs()[0]->name(), "logits");
  // Each BN's gamma and beta (2C) became its conv's bias (C); running stats are gone.
  const int64_t bn_channels = 64 + 4 * 64 + 5 * 128 + 5 * 256 + 5 * 512;
  EXPECT_EQ(zoo::parameterCount(*g), 11689512 - bn_channels);
}

TEST(ZooPipeline, ResNet50AndMobileNetV2) {
  auto r50 = zoo::buildModel("resnet50");
  runStandardPipeline(*r50);
  EXPECT_EQ(testing::opHistogram(*r50),
            (std::map<std::string, int>{
                {"Conv", 53}, {"Add", 16}, {"MaxPool", 1}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}}));
  EXPECT_EQ(countActivation(*r50, "Conv", "Relu"), 33);  // stem + two per bottleneck
  EXPECT_EQ(countActivation(*r50, "Add", "Relu"), 16);

  auto m = zoo::buildModel("mobilenetv2");
  runStandardPipeline(*m);
  EXPECT_EQ(
      testing::opHistogram(*m),
      (std::map<std::string, int>{{"Conv", 52}, {"Add", 10}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}}));
  EXPECT_EQ(countActivation(*m, "Conv", "Clip"), 35);  // every ReLU6
  for (const ir::Node* n : m->nodes())
    if (n->attrs().getString("activation", "") == "Clip") {
      EXPECT_EQ(n->attrs().getFloat("activation_min"), 0.0);
      EXPECT_EQ(n->attrs().getFloat("activation_max"), 6.0);
    }
}

TEST(ZooPipeline, EveryModelVerifies) {
  zoo::ZooOptions o;
  o.image_size = 64;
  for (const auto& name : zoo::modelNames()) {
    SCOPED_TRACE(name);
    auto g = zoo::buildModel(name, o);
    PassReport report = runStandardPipeline(*g);
    EXPECT_EQ(countOp(*g, "BatchNormalization"), 0);
    EXPECT_EQ(countOp(*g, "Relu"), 0);
    EXPECT_EQ(countOp(*g, "Clip"), 0);
    EXPECT_EQ(countOp(*g, "Dropout"), 0);
    EXPECT_TRUE(ir::verifyGraph(*g).empty());
    EXPECT_LT(report.passes.back().nodes_after, report.passes.front().nodes_before);
  }
}

class SameLogits : public ::testing::TestWithParam<const char*> {};

TEST_P(SameLogits, BeforeAndAfterThePipeline) {
  zoo::ZooOptions o;
  o.batch = 2;
  o.image_size = std::string(GetParam()) == "cnn" ? 16 : 64;
  o.seed = 3;
  auto g = zoo::buildModel(GetParam(), o);
  std::vector<rt::Tensor> input = {testing::randomTensor({2, 3, o.image_size, o.image_size}, 11)};
  rt::Tensor before = runReference(*g, input)[0];
  runStandardPipeline(*g);
  rt::Tensor after = runReference(*g, input)[0];
  EXPECT_LE(testing::relativeError(after, before), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Zoo, SameLogits, ::testing::Values("cnn", "resnet18", "mobilenetv2"));

}  // namespace
}  // namespace vdla
