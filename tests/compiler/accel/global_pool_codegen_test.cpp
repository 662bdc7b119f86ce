// Quantised global average pooling on the accelerator against the CPU's own
// kernel: random scales and zero points (a QLinearGlobalAveragePool node each,
// through the same placement code the compiler runs), random shapes with
// part-full channel blocks, chosen and random tile sizes, latency hiding on
// and off, on pynq (REQ) and tiny (MULSHR and CLIP) and every device backend
// of this build. Plus the exact form search, the cost model against the
// cycle-accurate simulator and the placement rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "accel_test_util.h"
#include "vdla/compiler/accel/global_pool_layer.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::accel {
namespace {

using test::scalarF32;
using test::scalarI8;

struct PoolParams {
  float sx = 1, sy = 1;
  int8_t zx = 0, zy = 0;
};

std::unique_ptr<ir::Graph> poolGraph(const PoolParams& p, const rt::Shape& shape, bool channels_last = false) {
  auto g = std::make_unique<ir::Graph>();
  ir::Value* x = g->addInput("x", rt::TensorType{rt::DType::I8, shape, rt::Layout::RowMajor});
  rt::AttributeMap attrs;
  if (channels_last) attrs.set("channels_last", int64_t(1));
  ir::Node* pool = g->addNode("QLinearGlobalAveragePool",
                              {x, g->addConstant("sx", scalarF32(p.sx)), g->addConstant("zx", scalarI8(p.zx)),
                               g->addConstant("sy", scalarF32(p.sy)), g->addConstant("zy", scalarI8(p.zy))},
                              1, attrs, "gap", "com.microsoft");
  rt::Shape out = shape;
  if (out.size() == 4) out[2] = out[3] = 1;
  pool->output(0)->setType(rt::TensorType{rt::DType::I8, out, rt::Layout::RowMajor});
  g->addOutput(pool->output(0));
  return g;
}

PoolParams randomParams(std::mt19937& rng) {
  std::uniform_real_distribution<float> scale(0.005f, 0.2f);
  std::uniform_int_distribution<int> zp(-128, 127);
  PoolParams p;
  p.sx = scale(rng);
  p.sy = scale(rng);
  p.zx = static_cast<int8_t>(zp(rng));
  p.zy = static_cast<int8_t>(zp(rng));
  return p;
}

rt::Tensor randomTensor(const rt::Shape& shape, std::mt19937& rng) {
  rt::Tensor t(rt::DType::I8, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<int8_t>()[i] = static_cast<int8_t>(rng() % 256);
  return t;
}

// The CPU's kernel (what the step would run without the accelerator).
rt::Tensor cpuPool(const PoolParams& p, const rt::Tensor& x) {
  rt::Tensor sx = scalarF32(p.sx), sy = scalarF32(p.sy), zx = scalarI8(p.zx), zy = scalarI8(p.zy);
  rt::Tensor y(rt::DType::I8, {x.dim(0), x.dim(1), 1, 1});
  rt::KernelArgs args;
  args.inputs = {&x, &sx, &zx, &sy, &zy};
  args.outputs = {&y};
  const rt::AttributeMap attrs;
  args.attrs = &attrs;
  rt::registerReferenceKernels(rt::KernelRegistry::global());
  rt::KernelRegistry::global().get(rt::referenceKernelName("com.microsoft.QLinearGlobalAveragePool"))(args);
  return y;
}

rt::Tensor runPool(driver::Device& dev, const GlobalPoolLayer& L, const TilePlan& plan, const rt::Tensor& x,
                   sim::ExecutionStats* stats = nullptr) {
  const hw::HwConfig& cfg = dev.config();
  const ConvProgram prog = generateGlobalPoolProgram(L, plan, cfg, 0, standaloneGlobalPoolPlacement(L, cfg));
  checkTokens(prog.program.insns, cfg, L.name);
  return test::runProgram(dev, prog, {{x, prog.y_block, prog.x_offset}}, {L.n, L.c, 1, 1}, stats);
}

class GlobalPoolCodegen : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(GlobalPoolCodegen, RandomPoolingsMatchTheCpuKernel) {
  const auto& [backend, config] = GetParam();
  const hw::HwConfig cfg = hw::loadConfig(config);
  auto dev = driver::createDevice(backend, cfg);
  const int count = backend == "fsim" ? 24 : 4;
  std::mt19937 rng(backend == "fsim" ? 1357 : 17);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int checked = 0;
  for (int k = 0; k < count; ++k) {
    const PoolParams p = randomParams(rng);
    // Small planes on tiny, whose accumulators hold 64 entries.
    const int64_t side = config == "tiny" ? 5 : 9;
    const rt::Shape shape = {pick(1, 2), pick(1, 70), pick(1, side), pick(1, side)};
    auto g = poolGraph(p, shape);
    const ir::Node& node = *g->findNode("gap");
    ASSERT_EQ(whyNotOffloadableGlobalPool(node), "") << "pooling " << k;
    const GlobalPoolLayer L = globalPoolLayerFromNode(node);
    const rt::Tensor x = randomTensor(shape, rng);
    const rt::Tensor want = cpuPool(p, x);
    for (bool lh : {true, false}) {
      TilePlan plan;
      try {
        plan = chooseGlobalPoolTiling(L, cfg, lh);
      } catch (const DoesNotFit&) {
        continue;  // the compiler keeps such a layer on the CPU
      }
      if (k % 2) {  // a random tile size that fits
        TilePlan q = plan;
        q.rows = pick(1, plan.rows);
        if (estimateGlobalPoolPlan(L, q, cfg).fits) plan = q;
      }
      const std::string what = "pooling " + std::to_string(k) + " (" + rt::shapeToString(shape) + ") on " + backend +
                               "/" + config + ", tile " + std::to_string(plan.rows) + " blocks, " +
                               std::to_string(plan.threads) + " threads";
      rt::Tensor got;
      ASSERT_NO_THROW(got = runPool(*dev, L, plan, x)) << what;
      ASSERT_EQ(got.numElements(), want.numElements()) << what;
      for (int64_t i = 0; i < got.numElements(); ++i)
        ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << what << ": element " << i;
      ++checked;
    }
  }
  EXPECT_GE(checked, count);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlobalPoolCodegen,
                         ::testing::Combine(::testing::ValuesIn(driver::deviceBackends()),
                                            ::testing::Values("pynq", "tiny", "ultra96")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// The scaled form reproduces every sum of a 7x7 plane for random parameters,
// and a table with one output moved against its neighbours has none.
TEST(ExactScaledForm, ReproducesEverySumAndRefusesAnImpossibleTable) {
  std::mt19937 rng(7);
  const int64_t n = 49, lowest = -128 * n;
  for (int k = 0; k < 12; ++k) {
    const PoolParams p = randomParams(rng);
    // The kernel's definition on planes whose sums cover every value.
    const int64_t sums = 255 * n + 1;
    rt::Tensor x(rt::DType::I8, {1, sums, n, 1});
    for (int64_t m = 0; m < sums; ++m) {
      int64_t left = m;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t raise = std::min<int64_t>(255, left);
        left -= raise;
        x.data<int8_t>()[m * n + i] = static_cast<int8_t>(-128 + raise);
      }
    }
    const rt::Tensor y = cpuPool(p, x);
    std::vector<AffineSample> samples;
    for (int64_t m = 0; m < sums; ++m) samples.push_back({int32_t(m + lowest), 0, y.data<int8_t>()[m]});
    const double ratio = double(p.sx) / (double(p.sy) * n), fixed = p.zy - ratio * p.zx * n;
    const std::optional<ScaledForm> f = findExactScaledForm(ratio, fixed, 128 * n, samples);
    ASSERT_TRUE(f.has_value()) << "parameters " << k;
    for (const AffineSample& x : samples) ASSERT_EQ(f->apply(x.a), x.y) << "parameters " << k << ", sum " << x.a;
    size_t mid = samples.size() / 2;
    while (mid < samples.size() && (samples[mid].y <= -120 || samples[mid].y >= 120)) ++mid;
    if (mid == samples.size()) continue;
    samples[mid].y += 2;
    EXPECT_FALSE(findExactScaledForm(ratio, fixed, 128 * n, samples).has_value()) << "parameters " << k;
  }
}

// MobileNetV2's pooling (7x7, 1280 channels) on the cycle-accurate
// simulator: the cost model's estimate within 5% of the measured cycles.
TEST(GlobalPoolCodegen, CostModelTracksTheCycleSimulator) {
  const auto backends = driver::deviceBackends();
  if (std::find(backends.begin(), backends.end(), "cycle") == backends.end())
    GTEST_SKIP() << "this build has no cycle-accurate device";
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  std::mt19937 rng(3);
  const PoolParams p = randomParams(rng);
  const rt::Shape shape = {1, 1280, 7, 7};
  auto g = poolGraph(p, shape);
  const GlobalPoolLayer L = globalPoolLayerFromNode(*g->findNode("gap"));
  const rt::Tensor x = randomTensor(shape, rng);
  auto dev = driver::createDevice("cycle", cfg);
  CostEstimate estimate;
  const TilePlan plan = chooseGlobalPoolTiling(L, cfg, true, &estimate);
  sim::ExecutionStats stats;
  const rt::Tensor got = runPool(*dev, L, plan, x, &stats);
  const rt::Tensor want = cpuPool(p, x);
  EXPECT_EQ(0, std::memcmp(got.raw(), want.raw(), static_cast<size_t>(want.byteSize())));
  const double err = (estimate.cycles - double(stats.cycles)) / double(stats.cycles);
  EXPECT_LT(std::fabs(err), 0.05) << "estimate " << estimate.cycles << ", measured " << stats.cycles;
}

TEST(GlobalPoolPlacement, NchwPlanesOfAtMost256Elements) {
  const PoolParams p;
  EXPECT_EQ(whyNotOffloadableGlobalPool(*poolGraph(p, {1, 16, 7, 7})->findNode("gap")), "");
  EXPECT_NE(whyNotOffloadableGlobalPool(*poolGraph(p, {1, 16, 17, 16})->findNode("gap")).find("at most 256"),
            std::string::npos);
  EXPECT_NE(whyNotOffloadableGlobalPool(*poolGraph(p, {1, 16, 7, 7}, true)->findNode("gap")).find("channels_last"),
            std::string::npos);
}

}  // namespace
}  // namespace vdla::accel
