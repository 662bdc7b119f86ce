// The CUDA backend on a GPU: every operator case against the reference
// kernels, and ResNet-18/50 and MobileNetV2 against the reference executor,
// within 1e-3 relative (fp32). Without a GPU (or driver) these tests skip,
// saying why; the test of the clear "no GPU" error runs instead.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "cuda_op_cases.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/runtime/cuda/cuda_session.h"
#include "vdla/runtime/executor.h"

namespace vdla::cuda {
namespace {

#define SKIP_WITHOUT_GPU()                                                  \
  do {                                                                      \
    const std::string problem_ = rt::cuda::deviceProblem();                 \
    if (!problem_.empty()) GTEST_SKIP() << "no usable GPU: " << problem_;   \
  } while (0)

// Largest |got - want| relative to the largest |want| of the tensor: the
// error measured against the tensor's scale (elementwise relative error is
// meaningless for values that cancel to near zero).
double scaledError(const rt::Tensor& got, const rt::Tensor& want) {
  if (got.dtype() != rt::DType::F32) {
    for (int64_t i = 0; i < want.numElements(); ++i)
      if (std::memcmp(static_cast<const char*>(got.raw()) + i * rt::dtypeSize(got.dtype()),
                      static_cast<const char*>(want.raw()) + i * rt::dtypeSize(want.dtype()), rt::dtypeSize(got.dtype())))
        return 1.0;
    return 0.0;
  }
  double max_err = 0, scale = 1e-6;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    const double w = want.data<float>()[i], g = got.data<float>()[i];
    if (std::isnan(w) && std::isnan(g)) continue;
    max_err = std::max(max_err, std::fabs(g - w));
    if (std::isnan(g) != std::isnan(w)) max_err = INFINITY;
    scale = std::max(scale, std::fabs(w));
  }
  return max_err / scale;
}

void expectClose(const std::vector<rt::Tensor>& got, const std::vector<rt::Tensor>& want, double tol,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what;
    EXPECT_LE(scaledError(got[i], want[i]), tol) << what << " output " << i;
  }
}

rt::Artifact compileCuda(ir::Graph& g, bool optimize, bool tf32 = false) {
  CompileOptions o;
  o.target = "cuda";
  o.optimize = optimize;
  o.cuda.tf32_tensor_cores = tf32;
  return compileGraph(g, o);
}

TEST(CudaGpu, EveryOperatorMatchesTheReferenceKernels) {
  SKIP_WITHOUT_GPU();
  for (const auto& c : testing::operatorCases()) {
    SCOPED_TRACE(c.name);
    auto g = c.build();
    std::vector<rt::Tensor> inputs;
    for (size_t i = 0; i < g->inputs().size(); ++i) inputs.push_back(testing::caseInput(*g->inputs()[i], 17 + i));
    const std::vector<rt::Tensor> want = runReference(*g, inputs);
    rt::Executor ex(compileCuda(*g, false));
    expectClose(ex.run(inputs), want, 1e-3, c.name);
  }
}

void runNetwork(const std::string& name, int64_t batch) {
  SKIP_WITHOUT_GPU();
  zoo::ZooOptions zo;
  zo.batch = batch;
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

TEST(CudaGpu, ResNet18) { runNetwork("resnet18", 1); }
TEST(CudaGpu, ResNet18Batch4) { runNetwork("resnet18", 4); }
TEST(CudaGpu, ResNet50) { runNetwork("resnet50", 1); }
TEST(CudaGpu, MobileNetV2) { runNetwork("mobilenetv2", 1); }

TEST(CudaGpu, Tf32TensorCoresStayNearFp32) {
  SKIP_WITHOUT_GPU();
  auto g = zoo::buildModel("resnet18");
  std::vector<rt::Tensor> inputs = {testing::caseInput(*g->inputs()[0], 3)};
  const std::vector<rt::Tensor> want = runReference(*g, inputs);
  rt::Executor ex(compileCuda(*g, true, true));
  expectClose(ex.run(inputs), want, 1e-2, "resnet18 tf32");
}

TEST(CudaGpu, OnStepSeesEveryStepsOutputs) {
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
TEST(CudaRuntime, NoGpuGivesAClearError) {
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
