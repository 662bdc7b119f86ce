// The CUDA backend on a GPU: every operator case against the reference
// kernels, and ResNet-18/50 and MobileNetV2 against the reference executor,
// within 1e-3 relative (fp32). Without a GPU (or driver) these tests skip,
// saying why; the test of the clear "no GPU" error runs instead.
//
// The same tests run on the emulated driver (emu/, vdla_cuda_emu_tests): the
// file is compiled a second time with the suites named CudaEmu and
// CudaEmuRuntime and linked with emu/emu_target.cpp instead of gpu_target.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "cuda_compare.h"
#include "cuda_op_cases.h"
#include "cuda_test_target.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/cuda/cuda_backend.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/frontend/onnx_importer.h"
#include "vdla/runtime/cuda/cuda_session.h"
#include "vdla/runtime/executor.h"

#ifndef VDLA_CUDA_SUITE
#define VDLA_CUDA_SUITE CudaGpu
#define VDLA_CUDA_RUNTIME_SUITE CudaRuntime
#endif

namespace vdla::cuda {
namespace {

using testing::compileCuda;
using testing::expectClose;

#define SKIP_WITHOUT_GPU()                                                \
  do {                                                                    \
    const std::string problem_ = rt::cuda::deviceProblem();               \
    if (!problem_.empty()) GTEST_SKIP() << "no usable GPU: " << problem_; \
  } while (0)

TEST(VDLA_CUDA_SUITE, EveryOperatorMatchesTheReferenceKernels) {
  SKIP_WITHOUT_GPU();
  for (const auto& c : testing::operatorCases()) {
    SCOPED_TRACE(c.name);
    auto g = c.build();
    std::vector<rt::Tensor> inputs;
    for (size_t i = 0; i < g->inputs().size(); ++i) inputs.push_back(testing::caseInput(*g->inputs()[i], 17 + i));
    const std::vector<rt::Tensor> want = runReference(*g, inputs);
    // One failing case must not hide the others.
    try {
      rt::Executor ex(compileCuda(*g, false));
      expectClose(ex.run(inputs), want, 1e-3, c.name);
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << ": " << e.what();
    }
  }
}

// Every implicit-GEMM variant the per-layer choice can pick (tile shapes with
// scalar and float4 shared-memory reads, TF32 where the GPU has tensor cores)
// on convolutions whose sizes are not multiples of any tile: dense, grouped,
// strided 3-D.
TEST(VDLA_CUDA_SUITE, EveryConvKernelVariantMatchesTheReferenceKernels) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::string> cases = {"conv3x3_bias_relu", "conv_grouped", "conv3d_strided_padded"};
  size_t run = 0;
  for (const auto& c : testing::operatorCases()) {
    if (std::find(cases.begin(), cases.end(), c.name) == cases.end()) continue;
    for (const std::string& kernel : convKernelNames()) {
      const bool tf32 = kernel.rfind("tf32", 0) == 0;
      if (tf32 && !testing::tensorCoreProblem().empty()) continue;
      SCOPED_TRACE(c.name + " with " + kernel);
      auto g = c.build();
      std::vector<rt::Tensor> inputs;
      for (size_t i = 0; i < g->inputs().size(); ++i) inputs.push_back(testing::caseInput(*g->inputs()[i], 23 + i));
      const std::vector<rt::Tensor> want = runReference(*g, inputs);
      CompileOptions o;
      o.target = "cuda";
      o.cuda.tf32_tensor_cores = tf32;
      o.cuda.conv_kernel = kernel;
      rt::Artifact a = compileGraph(*g, o);
      testing::prepareArtifact(a);
      ASSERT_NE(a.blobs.at("cuda.source").size(), 0u);
      rt::Executor ex(a);
      expectClose(ex.run(inputs), want, tf32 ? 1e-2 : 1e-3, c.name + " with " + kernel);
      ++run;
    }
  }
  EXPECT_GE(run, cases.size() * (convKernelNames().size() - 1));
}

void runNetwork(const std::string& name, int64_t batch) {
  SKIP_WITHOUT_GPU();
  zoo::ZooOptions zo;
  zo.batch = batch;
  zo.image_size = testing::networkImageSize();
  auto g = zoo::buildModel(name, zo);
  std::vector<rt::Tensor> inputs;
  for (size_t i = 0; i < g->inputs().size(); ++i) inputs.push_back(testing::caseInput(*g->inputs()[i], 5 + i));
  const std::vector<rt::Tensor> want = runReference(*g, inputs);
  rt::ExecutorOptions eo;
  eo.profile = true;
  rt::Executor ex(compileCuda(*g, true), eo);
  expectClose(ex.run(inputs), want, 1e-3, name);
  EXPECT_EQ(ex.profile().size(), ex.artifact().steps.size());
  // A second run on the same session gives the same result (the arena is reused).
  expectClose(ex.run(inputs), want, 1e-3, name + " (second run)");
}

TEST(VDLA_CUDA_SUITE, ResNet18) { runNetwork("resnet18", 1); }
TEST(VDLA_CUDA_SUITE, ResNet18Batch4) { runNetwork("resnet18", 4); }
TEST(VDLA_CUDA_SUITE, ResNet50) { runNetwork("resnet50", 1); }
TEST(VDLA_CUDA_SUITE, MobileNetV2) { runNetwork("mobilenetv2", 1); }

// The published int8 MobileNetV2 in QOperator form (QLinearConv,
// QLinearAdd, QLinearGlobalAveragePool, QLinearMatMul...): every integer step
// has the reference kernels' arithmetic, so the dequantised logits are equal
// bit for bit.
TEST(VDLA_CUDA_SUITE, QuantizedMobileNetV2IsBitExact) {
  SKIP_WITHOUT_GPU();
  const std::string path = std::string(VDLA_SHARED_DATA_DIR) + "/models/mobilenetv2-imagenet-int8-qoperator.onnx";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "shared data not present: " << path;
  auto g = frontend::importOnnxFile(path);
  std::vector<rt::Tensor> inputs;
  for (size_t i = 0; i < g->inputs().size(); ++i) inputs.push_back(testing::caseInput(*g->inputs()[i], 9 + i));
  const std::vector<rt::Tensor> want = runReference(*g, inputs);
  rt::Executor ex(compileCuda(*g, true));
  expectClose(ex.run(inputs), want, 0.0, "quantised mobilenetv2");
}

TEST(VDLA_CUDA_SUITE, Tf32TensorCoresStayNearFp32) {
  SKIP_WITHOUT_GPU();
  if (!testing::tensorCoreProblem().empty()) GTEST_SKIP() << testing::tensorCoreProblem();
  auto g = zoo::buildModel("resnet18");
  std::vector<rt::Tensor> inputs = {testing::caseInput(*g->inputs()[0], 3)};
  const std::vector<rt::Tensor> want = runReference(*g, inputs);
  rt::Executor ex(compileCuda(*g, true, true));
  expectClose(ex.run(inputs), want, 1e-2, "resnet18 tf32");
}

TEST(VDLA_CUDA_SUITE, OnStepSeesEveryStepsOutputs) {
  SKIP_WITHOUT_GPU();
  auto g = zoo::buildModel("cnn");
  std::vector<rt::Tensor> inputs = {testing::caseInput(*g->inputs()[0], 4)};
  rt::ExecutorOptions eo;
  size_t seen = 0;
  eo.on_step = [&](size_t, const rt::ArtifactStep& s, const std::vector<rt::Tensor*>& outs) {
    ++seen;
    EXPECT_EQ(outs.size(), s.outputs.size());
  };
  rt::Executor ex(compileCuda(*g, true), eo);
  ex.run(inputs);
  EXPECT_EQ(seen, ex.artifact().steps.size());
}

// Without a GPU or driver, running a cuda artifact fails with a clear error
// naming the artifact and the reason; never a crash.
TEST(VDLA_CUDA_RUNTIME_SUITE, NoGpuGivesAClearError) {
  const std::string problem = rt::cuda::deviceProblem();
  if (problem.empty()) GTEST_SKIP() << "a GPU is present";
  auto g = zoo::buildModel("cnn");
  const rt::Artifact a = compileCuda(*g, true);
  try {
    rt::Executor ex(a);
    FAIL() << "no error";
  } catch (const rt::cuda::CudaError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("artifact 'cnn': "), std::string::npos) << m;
    EXPECT_NE(m.find(problem), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace vdla::cuda
