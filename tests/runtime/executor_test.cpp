// The artifact executor on hand-built plans: results, input checks, missing
// kernels, the hardware-config check, profiling, freeing of intermediates and
// the reuse of their buffers across runs.
#include "vdla/runtime/executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::rt {
namespace {

ArtifactTensor value(const std::string& name, Shape shape) {
  ArtifactTensor t;
  t.name = name;
  t.type = TensorType{DType::F32, std::move(shape), Layout::RowMajor};
  return t;
}

ArtifactStep step(const std::string& kernel, const std::string& name, std::vector<int32_t> in,
                  std::vector<int32_t> out) {
  ArtifactStep s;
  s.kernel = kernel;
  s.name = name;
  s.inputs = std::move(in);
  s.outputs = std::move(out);
  return s;
}

// y = Relu(x + c) * x with c a constant broadcast over rows.
Artifact smallPlan() {
  Artifact a;
  a.model_name = "small";
  a.tensors.push_back(value("x", {2, 3}));  // 0
  ArtifactTensor c = value("c", {3});
  c.constant = Tensor::fromVector<float>({3}, {1.0f, -10.0f, 0.5f});
  a.tensors.push_back(c);                     // 1
  a.tensors.push_back(value("sum", {2, 3}));  // 2
  a.tensors.push_back(value("act", {2, 3}));  // 3
  a.tensors.push_back(value("y", {2, 3}));    // 4
  a.inputs = {0};
  a.steps.push_back(step("ref.Add", "add", {0, 1}, {2}));
  a.steps.push_back(step("ref.Relu", "relu", {2}, {3}));
  a.steps.push_back(step("ref.Mul", "mul", {3, 0}, {4}));
  a.outputs = {4};
  return a;
}

TEST(Executor, RunsThePlan) {
  Executor ex(smallPlan());
  Tensor x = Tensor::fromVector<float>({2, 3}, {1, 2, 3, -4, 20, -0.5f});
  std::vector<Tensor> out = ex.run({x});
  ASSERT_EQ(out.size(), 1u);
  std::vector<float> want = {2 * 1, 0 * 2, 3.5f * 3, 0 * -4, 10 * 20, 0 * -0.5f};
  EXPECT_EQ(out[0].toVector<float>(), want);
  EXPECT_EQ(ex.numInputs(), 1u);
  EXPECT_EQ(ex.input(0).name, "x");
  EXPECT_EQ(ex.output(0).name, "y");
  // A second run gives the same result (nothing leaks between runs).
  EXPECT_EQ(ex.run({x})[0].toVector<float>(), want);
}

TEST(Executor, ChecksInputs) {
  Executor ex(smallPlan());
  auto expectError = [&](const std::vector<Tensor>& inputs, const std::string& fragment) {
    try {
      ex.run(inputs);
      ADD_FAILURE() << "no error, expected " << fragment;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expectError({}, "model 'small' takes 1 input(s), got 0");
  expectError({Tensor(DType::F32, {3, 2})}, "input 0 'x' expects f32[2,3], got f32[3,2]");
  expectError({Tensor(DType::I8, {2, 3})}, "input 0 'x' expects f32[2,3], got i8[2,3]");
  expectError({Tensor()}, "input 0 'x': no tensor given");
}

TEST(Executor, MissingKernelIsNamedAtConstruction) {
  Artifact a = smallPlan();
  a.steps[1].kernel = "ref.NoSuchOp";
  try {
    Executor ex(a);
    FAIL() << "accepted an unknown kernel";
  } catch (const ArtifactError& e) {
    EXPECT_NE(std::string(e.what()).find("step 1 'relu' (ref.NoSuchOp) needs kernel 'ref.NoSuchOp'"), std::string::npos)
        << e.what();
  }
}

TEST(Executor, KernelErrorsNameTheStep) {
  KernelRegistry registry;
  registerReferenceKernels(registry);
  registry.add("test.Fail", [](const KernelArgs&) { throw KernelError("unsupported value"); });
  Artifact a = smallPlan();
  a.steps[1].kernel = "test.Fail";
  Executor ex(a, registry);
  try {
    ex.run({Tensor(DType::F32, {2, 3})});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "step 1 'relu' (test.Fail): unsupported value");
  }
}

TEST(Executor, RefusesAnArtifactForAnotherHardwareConfig) {
  Artifact a = smallPlan();
  hw::HwConfig pynq = hw::loadConfig("pynq");
  hw::HwConfig tiny = hw::loadConfig("tiny");
  a.target = "vdla";
  a.hw_config_name = "pynq";
  a.hw_config_hash = pynq.hash;
  ExecutorOptions on_tiny;
  on_tiny.device_config = &tiny;
  try {
    Executor ex(a, on_tiny);
    FAIL() << "ran a pynq artifact on a tiny device";
  } catch (const ArtifactError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("compiled for hardware config 'pynq' (hash " + pynq.hashHex() + ")"), std::string::npos) << msg;
    EXPECT_NE(msg.find("the device's config 'tiny' has hash " + tiny.hashHex()), std::string::npos) << msg;
  }
  // Without a device config a vdla artifact is refused as well.
  EXPECT_THROW(Executor(a, ExecutorOptions{}), ArtifactError);
  // With the matching config the check passes (this plan's ref kernels then run).
  ExecutorOptions on_pynq;
  on_pynq.device_config = &pynq;
  EXPECT_NO_THROW(Executor(a, on_pynq));
  // Host targets ignore the device config.
  a.target = "ref";
  EXPECT_NO_THROW(Executor(a, on_tiny));
}

TEST(Executor, ProfilesEveryStep) {
  ExecutorOptions options;
  options.profile = true;
  Executor ex(smallPlan(), options);
  ex.run({Tensor(DType::F32, {2, 3})});
  ASSERT_EQ(ex.profile().size(), 3u);
  EXPECT_EQ(ex.profile()[0].name, "add");
  EXPECT_EQ(ex.profile()[2].kernel, "ref.Mul");
  for (const auto& p : ex.profile()) EXPECT_GE(p.seconds, 0.0);
  ex.setProfiling(false);
  ex.run({Tensor(DType::F32, {2, 3})});
  EXPECT_TRUE(ex.profile().empty());
}

TEST(Executor, FreesIntermediatesAfterTheirLastUse) {
  // A chain of 10 Relus over 1 MiB tensors: at most two are alive at once.
  Artifact a;
  const Shape shape = {256, 1024};
  a.tensors.push_back(value("x", shape));
  a.inputs = {0};
  for (int i = 1; i <= 10; ++i) {
    a.tensors.push_back(value("r" + std::to_string(i), shape));
    a.steps.push_back(step("ref.Relu", "relu" + std::to_string(i), {i - 1}, {i}));
  }
  a.outputs = {10};
  Executor ex(a);
  Tensor x(DType::F32, shape);
  x.data<float>()[5] = -1;
  x.data<float>()[6] = 2;
  std::vector<Tensor> out = ex.run({x});
  EXPECT_EQ(out[0].data<float>()[5], 0.0f);
  EXPECT_EQ(out[0].data<float>()[6], 2.0f);
  EXPECT_EQ(ex.peakActivationBytes(), 2u * 256 * 1024 * 4);
}

TEST(Executor, GraphOutputsThatAreInputsOrConstants) {
  Artifact a = smallPlan();
  a.outputs = {4, 0, 1, 2};  // y, the input x, the constant c, an intermediate
  Executor ex(a);
  Tensor x = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  std::vector<Tensor> out = ex.run({x});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[1].toVector<float>(), x.toVector<float>());
  EXPECT_EQ(out[2].toVector<float>(), (std::vector<float>{1.0f, -10.0f, 0.5f}));
  EXPECT_EQ(out[3].toVector<float>(), (std::vector<float>{2, -8, 3.5f, 5, -5, 6.5f}));
}

// A chain of equally shaped steps whose intermediates share buffers, with a
// branch (the Add reads two earlier values) so that reuse must respect every
// reader: y = Relu(Tanh(x) + Sigmoid(Tanh(x)) * x).
Artifact branchyPlan() {
  Artifact a;
  a.model_name = "branchy";
  const Shape shape = {3, 5};
  for (const char* name : {"x", "t", "s", "m", "sum", "y"}) a.tensors.push_back(value(name, shape));
  a.inputs = {0};
  a.steps.push_back(step("ref.Tanh", "tanh", {0}, {1}));
  a.steps.push_back(step("ref.Sigmoid", "sigmoid", {1}, {2}));
  a.steps.push_back(step("ref.Mul", "mul", {2, 0}, {3}));
  a.steps.push_back(step("ref.Add", "add", {1, 3}, {4}));
  a.steps.push_back(step("ref.Relu", "relu", {4}, {5}));
  a.outputs = {5};
  return a;
}

Tensor randomInput(const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-3.0f, 3.0f);
  Tensor t(DType::F32, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = dist(rng);
  return t;
}

TEST(Executor, ReusedBuffersDoNotLeakBetweenRuns) {
  // One executor runs two different inputs back to back (and the first again);
  // each result must equal that of a fresh executor, which has no history.
  const Artifact plan = branchyPlan();
  Executor reused(plan);
  for (uint32_t seed : {1u, 2u, 1u}) {
    const Tensor x = randomInput({3, 5}, seed);
    const std::vector<float> got = reused.run({x})[0].toVector<float>();
    const std::vector<float> want = Executor(plan).run({x})[0].toVector<float>();
    EXPECT_EQ(got, want) << "seed " << seed;
    // And against the formula itself, in case both executors were wrong alike.
    for (int64_t i = 0; i < x.numElements(); ++i) {
      const float xi = x.data<float>()[i];
      const float t = std::tanh(xi);
      const float expect = std::max(0.0f, t + (1.0f / (1.0f + std::exp(-t))) * xi);
      EXPECT_NEAR(got[i], expect, 1e-5f) << "seed " << seed << " element " << i;
    }
  }
}

TEST(Executor, IntermediatesShareBuffersWhenTheirLifetimesDoNotOverlap) {
  // In the Relu chain only two values are alive at once, so its eight
  // intermediates need two buffers between them; the graph output has its own.
  Artifact a;
  const Shape shape = {4, 8};
  a.tensors.push_back(value("x", shape));
  a.inputs = {0};
  for (int i = 1; i <= 10; ++i) {
    a.tensors.push_back(value("r" + std::to_string(i), shape));
    a.steps.push_back(step("ref.Relu", "relu" + std::to_string(i), {i - 1}, {i}));
  }
  a.outputs = {10};
  std::vector<const void*> buffers;
  ExecutorOptions options;
  options.on_step = [&](size_t, const ArtifactStep&, const std::vector<Tensor*>& outs) {
    buffers.push_back(outs[0]->raw());
  };
  Executor ex(a, options);
  ex.run({randomInput(shape, 3)});
  ASSERT_EQ(buffers.size(), 10u);
  std::vector<const void*> distinct(buffers.begin(), buffers.end() - 1);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  EXPECT_EQ(distinct.size(), 2u);
  for (size_t i = 0; i + 1 < buffers.size(); ++i) EXPECT_NE(buffers[i], buffers[i + 1]) << "step " << i;
}

TEST(Executor, ReturnedOutputsSurviveLaterRuns) {
  // run() hands the outputs to the caller; a later run must not write to
  // them, even when an output is also read by later steps.
  Artifact a = smallPlan();
  a.outputs = {4, 2};  // y and the intermediate sum (read by the Relu)
  Executor ex(a);
  const Tensor x1 = Tensor::fromVector<float>({2, 3}, {1, 2, 3, -4, 20, -0.5f});
  const Tensor x2 = Tensor::fromVector<float>({2, 3}, {7, -7, 1, 1, -1, 0});
  const std::vector<Tensor> first = ex.run({x1});
  const std::vector<float> y1 = first[0].toVector<float>();
  const std::vector<float> sum1 = first[1].toVector<float>();
  const std::vector<Tensor> second = ex.run({x2});
  EXPECT_EQ(first[0].toVector<float>(), y1);
  EXPECT_EQ(first[1].toVector<float>(), sum1);
  EXPECT_NE(first[0].raw(), second[0].raw());
  EXPECT_EQ(second[0].toVector<float>(), Executor(a).run({x2})[0].toVector<float>());
  EXPECT_EQ(sum1, (std::vector<float>{2, -8, 3.5f, -3, 10, 0}));
}

}  // namespace
}  // namespace vdla::rt
