// torchvision's ResNet-18 and MobileNetV2 (weights=None, seeded, random batch-norm
// statistics), exported to ONNX by scripts/onnx/export_torchvision.py together
// with torch's own output, must give the same logits through the importer, the
// standard pass pipeline and the reference executor: every logit within 1e-4
// of torch's, relative to the largest logit magnitude.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/frontend/onnx_importer.h"

namespace vdla {
namespace {

void compareWithTorch(const std::string& name) {
  const std::string dir = std::string(VDLA_TORCHVISION_DIR) + "/torchvision_" + name;
  if (!std::filesystem::exists(dir + "/model.onnx")) GTEST_SKIP() << "no export in " << dir;
  auto graph = frontend::importOnnxFile(dir + "/model.onnx");
  rt::Tensor input = frontend::loadOnnxTensorFile(dir + "/test_data_set_0/input_0.pb");
  rt::Tensor expected = frontend::loadOnnxTensorFile(dir + "/test_data_set_0/output_0.pb");

  auto unoptimised = runReference(*graph, {input}).at(0);
  runStandardPipeline(*graph);
  auto optimised = runReference(*graph, {input}).at(0);

  ASSERT_EQ(optimised.shape(), expected.shape());
  const float* want = expected.data<float>();
  float scale = 0;
  for (int64_t i = 0; i < expected.numElements(); ++i) scale = std::max(scale, std::fabs(want[i]));
  ASSERT_GT(scale, 0.0f) << "torch's logits are all zero: the export is degenerate";
  for (const rt::Tensor* got : {&unoptimised, &optimised}) {
    const float* g = got->data<float>();
    double worst = 0;
    int64_t worst_index = 0;
    for (int64_t i = 0; i < expected.numElements(); ++i) {
      double err = std::fabs(g[i] - want[i]) / scale;
      if (err > worst) worst = err, worst_index = i;
    }
    std::printf("%s (%s): max |ours - torch| / max|torch| = %.3g (logit %lld)\n", name.c_str(),
                got == &optimised ? "optimised" : "as imported", worst, static_cast<long long>(worst_index));
    EXPECT_LE(worst, 1e-4) << name << " logit " << worst_index << ": ours " << g[worst_index] << ", torch "
                           << want[worst_index];
  }
}

TEST(Torchvision, ResNet18MatchesTorch) { compareWithTorch("resnet18"); }
TEST(Torchvision, MobileNetV2MatchesTorch) { compareWithTorch("mobilenetv2"); }

}  // namespace
}  // namespace vdla
