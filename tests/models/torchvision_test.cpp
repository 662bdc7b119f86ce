// torchvision classifiers (weights=None, seeded, random batch-norm statistics),
// exported to ONNX by scripts/onnx/export_torchvision.py together with torch's
// own output, must give the same logits through the importer, the standard
// pass pipeline and each CPU target: every logit within 1e-4 of torch's,
// relative to the largest logit magnitude. Target ref runs the reference
// executor on the graph as imported and as optimised; target llvm compiles
// the model with the compile driver (generated code, reference kernels for
// the operators it has no code for) and runs the artifact.
//
// The models are the CI set CMake exports (VDLA_TORCHVISION_MODELS at opset
// 13, VDLA_TORCHVISION_OPSET17_MODELS at opset 17, whose LayerNormalization
// the older exports spell out); the larger ones are measured by
// benchmarks/torchvision_targets.py instead.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "vdla/compiler/compile.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/frontend/onnx_importer.h"
#include "vdla/runtime/executor.h"

namespace vdla {
namespace {

struct Case {
  std::string model, target;
  int opset;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& [models, opset] : {std::make_pair(std::string(VDLA_TORCHVISION_MODELS), 13),
                                      std::make_pair(std::string(VDLA_TORCHVISION_OPSET17_MODELS), 17)}) {
    std::stringstream list(models);
    for (std::string model; std::getline(list, model, ',');)
      if (!model.empty())
        for (const char* target : {"ref", "llvm"}) out.push_back({model, target, opset});
  }
  return out;
}

// max |got - want| / max |want|, printed with the logit where it occurs.
void expectCloseToTorch(const rt::Tensor& got, const rt::Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const float* w = want.data<float>();
  const float* g = got.data<float>();
  float scale = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) scale = std::max(scale, std::fabs(w[i]));
  ASSERT_GT(scale, 0.0f) << "torch's logits are all zero: the export is degenerate";
  double worst = 0;
  int64_t worst_index = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    const double err = std::fabs(g[i] - w[i]) / scale;
    if (!(err <= worst)) worst = err, worst_index = i;  // also catches NaN
  }
  std::printf("%s: max |ours - torch| / max|torch| = %.3g (logit %lld)\n", what.c_str(), worst,
              static_cast<long long>(worst_index));
  EXPECT_LE(worst, 1e-4) << what << " logit " << worst_index << ": ours " << g[worst_index] << ", torch "
                         << w[worst_index];
}

class TorchvisionModel : public ::testing::TestWithParam<Case> {};

TEST_P(TorchvisionModel, MatchesTorch) {
  const Case& c = GetParam();
  const std::string dir =
      std::string(c.opset == 13 ? VDLA_TORCHVISION_DIR : VDLA_TORCHVISION_OPSET17_DIR) + "/torchvision_" + c.model;
  if (!std::filesystem::exists(dir + "/model.onnx")) GTEST_SKIP() << "no export in " << dir;
  auto graph = frontend::importOnnxFile(dir + "/model.onnx");
  rt::Tensor input = frontend::loadOnnxTensorFile(dir + "/test_data_set_0/input_0.pb");
  rt::Tensor expected = frontend::loadOnnxTensorFile(dir + "/test_data_set_0/output_0.pb");
  if (c.target == "ref") {
    expectCloseToTorch(runReference(*graph, {input}).at(0), expected, c.model + " (ref, as imported)");
    runStandardPipeline(*graph);
    expectCloseToTorch(runReference(*graph, {input}).at(0), expected, c.model + " (ref, optimised)");
    return;
  }
  CompileOptions options;
  options.target = c.target;
  CompileReport report;
  rt::Artifact artifact = compileGraph(*graph, options, &report);
  ASSERT_TRUE(report.kernels);
  rt::Executor executor(artifact, *report.kernels);
  expectCloseToTorch(executor.run({input}).at(0), expected, c.model + " (" + c.target + ")");
}

INSTANTIATE_TEST_SUITE_P(Torchvision, TorchvisionModel, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.model + (info.param.opset == 13 ? "" : "_opset17") + "_" +
                                  info.param.target;
                         });

}  // namespace
}  // namespace vdla
