// The fuzzer's seed models (scripts/onnx/gen_fuzz_corpus.py) must import and
// run: they cover each operator family in its opset-dependent forms, so this
// is also an end-to-end check of multi-operator models.
#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vdla/compiler/reference_executor.h"
#include "vdla/frontend/onnx_importer.h"

namespace vdla::frontend {
namespace {

const std::string kSeedDir = VDLA_ONNX_FUZZ_SEED_DIR;

std::vector<std::string> seedNames() {
  std::vector<std::string> names;
  if (DIR* d = opendir(kSeedDir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".onnx") == 0) names.push_back(n.substr(0, n.size() - 5));
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

class FuzzSeed : public ::testing::TestWithParam<std::string> {};

TEST_P(FuzzSeed, ImportsAndRuns) {
  std::unique_ptr<ir::Graph> graph;
  try {
    graph = importOnnxFile(kSeedDir + "/" + GetParam() + ".onnx");
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  std::vector<rt::Tensor> inputs;
  for (const ir::Value* in : graph->inputs()) inputs.emplace_back(in->type());
  try {
    auto outputs = runReference(*graph, inputs);
    EXPECT_EQ(outputs.size(), graph->outputs().size());
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Onnx, FuzzSeed, ::testing::ValuesIn(seedNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(FuzzSeedData, WasGenerated) { EXPECT_GE(seedNames().size(), 10u) << kSeedDir; }

}  // namespace
}  // namespace vdla::frontend
