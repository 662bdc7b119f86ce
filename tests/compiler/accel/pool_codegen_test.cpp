// Generated max-pooling programs against max pooling restated naively: random
// windows, strides, paddings (non-negative inputs, as the compiler requires
// for padded windows; any int8 without padding), channel counts that leave a
// block part-full, chosen and random tilings, latency hiding on and off, on
// pynq and tiny and every device backend of this build. Plus the cost model
// against the cycle-accurate simulator and the placement rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "accel_test_util.h"
#include "vdla/compiler/accel/pool_layer.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/hw/config.h"

namespace vdla::accel {
namespace {

PoolLayer randomPool(std::mt19937& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  PoolLayer L;
  L.name = "pool";
  L.n = pick(1, 2);
  L.c = pick(1, 40);
  L.kh = pick(1, 3);
  L.kw = pick(1, 3);
  L.sh = pick(1, 3);
  L.sw = pick(1, 3);
  L.h = pick(L.kh, 13);
  L.w = pick(L.kw, 13);
  if (pick(0, 1)) {
    L.pad_top = pick(0, L.kh - 1);
    L.pad_bottom = pick(0, L.kh - 1);
    L.pad_left = pick(0, L.kw - 1);
    L.pad_right = pick(0, L.kw - 1);
  }
  L.oh = (L.h + L.pad_top + L.pad_bottom - L.kh) / L.sh + 1;
  L.ow = (L.w + L.pad_left + L.pad_right - L.kw) / L.sw + 1;
  return L;
}

bool padded(const PoolLayer& L) { return L.pad_top || L.pad_left || L.pad_bottom || L.pad_right; }

rt::Tensor randomInput(const PoolLayer& L, std::mt19937& rng) {
  rt::Tensor x(rt::DType::I8, {L.n, L.c, L.h, L.w});
  std::uniform_int_distribution<int> v(padded(L) ? 0 : -128, 127);
  for (int64_t i = 0; i < x.numElements(); ++i) x.data<int8_t>()[i] = static_cast<int8_t>(v(rng));
  return x;
}

// Max over the window's elements inside the input (ONNX MaxPool).
rt::Tensor naiveMaxPool(const PoolLayer& L, const rt::Tensor& x) {
  rt::Tensor y(rt::DType::I8, {L.n, L.c, L.oh, L.ow});
  int8_t* out = y.data<int8_t>();
  for (int64_t n = 0; n < L.n; ++n)
    for (int64_t c = 0; c < L.c; ++c)
      for (int64_t oy = 0; oy < L.oh; ++oy)
        for (int64_t ox = 0; ox < L.ow; ++ox) {
          int m = -129;
          for (int64_t ky = 0; ky < L.kh; ++ky)
            for (int64_t kx = 0; kx < L.kw; ++kx) {
              const int64_t iy = oy * L.sh - L.pad_top + ky, ix = ox * L.sw - L.pad_left + kx;
              if (iy < 0 || iy >= L.h || ix < 0 || ix >= L.w) continue;
              m = std::max<int>(m, x.data<int8_t>()[((n * L.c + c) * L.h + iy) * L.w + ix]);
            }
          *out++ = static_cast<int8_t>(m);
        }
  return y;
}

std::string describe(const PoolLayer& L) {
  return "n" + std::to_string(L.n) + " c" + std::to_string(L.c) + " " + std::to_string(L.h) + "x" +
         std::to_string(L.w) + " k" + std::to_string(L.kh) + "x" + std::to_string(L.kw) + " s" + std::to_string(L.sh) +
         "," + std::to_string(L.sw) + " pads " + std::to_string(L.pad_top) + "," + std::to_string(L.pad_left) + "," +
         std::to_string(L.pad_bottom) + "," + std::to_string(L.pad_right);
}

rt::Tensor runPool(driver::Device& dev, const PoolLayer& L, const TilePlan& plan, const rt::Tensor& x,
                   sim::ExecutionStats* stats = nullptr) {
  const hw::HwConfig& cfg = dev.config();
  const ConvProgram prog = generatePoolProgram(L, plan, cfg, 0, standalonePoolPlacement(L, cfg));
  checkTokens(prog.program.insns, cfg, L.name);
  return test::runProgram(dev, prog, {{x, prog.y_block, prog.x_offset}}, {L.n, L.c, L.oh, L.ow}, stats);
}

class PoolCodegen : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(PoolCodegen, RandomPoolingsMatchNaiveDefinition) {
  const auto& [backend, config] = GetParam();
  const hw::HwConfig cfg = hw::loadConfig(config);
  auto dev = driver::createDevice(backend, cfg);
  const int count = backend == "fsim" ? 60 : 8;
  std::mt19937 rng(backend == "fsim" ? 4321 : 77);
  const bool both_forms = poolInputCanUseInput(cfg);
  int checked = 0, folded = 0, via_input = 0;
  for (int k = 0; k < count; ++k) {
    const PoolLayer L = randomPool(rng);
    // Windows whose rows fold into a private one first (pool_codegen.cpp).
    folded += L.kh >= 2 && L.sh >= 2 && L.kh <= L.sh + 1;
    const rt::Tensor x = randomInput(L, rng);
    const rt::Tensor want = naiveMaxPool(L, x);
    for (bool lh : {true, false}) {
      TilePlan plan = choosePoolTiling(L, cfg, lh);
      // Where both forms exist, odd poolings take the INP form and even ones
      // the ACC8 one, whichever the cost model prefers.
      if (both_forms) plan.residual_via_input = k % 2;
      if (k % 2 || both_forms) {  // a random tiling that fits
        TilePlan p = plan;
        p.rows = std::uniform_int_distribution<int64_t>(1, L.oh)(rng);
        if (estimatePoolPlan(L, p, cfg).fits) plan = p;
      }
      if (!estimatePoolPlan(L, plan, cfg).fits) {
        ASSERT_TRUE(both_forms) << "the chosen tiling does not fit";
        plan = choosePoolTiling(L, cfg, lh);
      }
      via_input += plan.residual_via_input;
      const std::string what = "pooling " + std::to_string(k) + " (" + describe(L) + ") on " + backend + "/" + config +
                               ", tile " + std::to_string(plan.rows) + " rows, " + std::to_string(plan.threads) +
                               " threads" + (plan.residual_via_input ? ", the input through INP" : "");
      rt::Tensor got;
      ASSERT_NO_THROW(got = runPool(*dev, L, plan, x)) << what;
      ASSERT_EQ(got.numElements(), want.numElements()) << what;
      for (int64_t i = 0; i < got.numElements(); ++i)
        ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << what << ": element " << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2 * count);
  EXPECT_GE(folded, count / 6);
  if (both_forms) {
    EXPECT_GE(via_input, count / 2) << "too few poolings took the INP form";
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, PoolCodegen,
                         ::testing::Combine(::testing::ValuesIn(driver::deviceBackends()),
                                            ::testing::Values("pynq", "tiny", "ultra96")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// ResNet's stem pooling (3x3, stride 2, pad 1 over 64 channels at 56x56
// output, reduced to 28x28 here) on the cycle-accurate simulator: the cost
// model's estimate within 5% of the measured cycles.
TEST(PoolCodegen, CostModelTracksTheCycleSimulator) {
  const auto backends = driver::deviceBackends();
  if (std::find(backends.begin(), backends.end(), "cycle") == backends.end())
    GTEST_SKIP() << "this build has no cycle-accurate device";
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  PoolLayer L;
  L.name = "stem_pool";
  L.c = 64;
  L.h = L.w = 56;
  L.kh = L.kw = 3;
  L.sh = L.sw = 2;
  L.pad_top = L.pad_left = L.pad_bottom = L.pad_right = 1;
  L.oh = L.ow = 28;
  std::mt19937 rng(5);
  const rt::Tensor x = [&] {
    rt::Tensor t(rt::DType::I8, {1, 64, 56, 56});
    for (int64_t i = 0; i < t.numElements(); ++i) t.data<int8_t>()[i] = static_cast<int8_t>(rng() % 128);
    return t;
  }();
  auto dev = driver::createDevice("cycle", cfg);
  const rt::Tensor want = naiveMaxPool(L, x);
  // The best tiling of each form: the input through INP (pynq has it) and
  // through the compute module's LOAD ACC8.
  ASSERT_TRUE(poolInputCanUseInput(cfg));
  double measured[2] = {0, 0};
  for (bool via : {false, true}) {
    TilePlan plan;
    CostEstimate estimate;
    estimate.cycles = 1e30;
    for (int64_t rows = 1; rows <= L.oh; ++rows) {
      TilePlan p;
      p.rows = rows;
      p.cols = L.ow;
      p.threads = 2;
      p.residual_via_input = via;
      const CostEstimate e = estimatePoolPlan(L, p, cfg);
      if (e.fits && e.cycles < estimate.cycles) plan = p, estimate = e;
    }
    ASSERT_TRUE(estimate.fits) << (via ? "INP form" : "ACC8 form");
    sim::ExecutionStats stats;
    const rt::Tensor got = runPool(*dev, L, plan, x, &stats);
    EXPECT_EQ(0, std::memcmp(got.raw(), want.raw(), static_cast<size_t>(want.byteSize())));
    const double err = (estimate.cycles - double(stats.cycles)) / double(stats.cycles);
    EXPECT_LT(std::fabs(err), 0.05) << (via ? "INP form" : "ACC8 form") << ": estimate " << estimate.cycles
                                    << ", measured " << stats.cycles;
    measured[via] = double(stats.cycles);
  }
  // On pynq's 64-bit port a LOAD ACC8 takes two cycles a vector, the GEMM one.
  EXPECT_LT(measured[1], 0.8 * measured[0]) << "INP form " << measured[1] << " cycles, ACC8 form " << measured[0];
  // And the chooser takes the faster form.
  EXPECT_TRUE(choosePoolTiling(L, cfg, true).residual_via_input);
}

// Which MaxPool nodes run on the accelerator, and why the others do not.
TEST(PoolPlacement, PaddedPoolingNeedsANonNegativeProducer) {
  auto build = [](int64_t clip_lo, bool pads) {
    auto g = std::make_unique<ir::Graph>();
    ir::Value* x = g->addInput("x", rt::TensorType{rt::DType::I8, {1, 16, 8, 8}, rt::Layout::RowMajor});
    rt::Tensor w(rt::DType::I8, {16, 16, 1, 1});
    rt::AttributeMap qa;
    qa.set("clip_lo", clip_lo);
    ir::Node* conv =
        g->addNode("QConv", {x, g->addConstant("w", w), g->addConstant("b", rt::Tensor(rt::DType::I32, {16}))}, 1, qa,
                   "conv", "vdla");
    rt::AttributeMap pa;
    pa.set("kernel_shape", std::vector<int64_t>{3, 3});
    pa.set("strides", std::vector<int64_t>{2, 2});
    if (pads) pa.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    ir::Node* pool = g->addNode("MaxPool", {conv->output(0)}, 1, pa, "pool");
    g->addOutput(pool->output(0));
    conv->output(0)->setType(rt::TensorType{rt::DType::I8, {1, 16, 8, 8}, rt::Layout::RowMajor});
    const int64_t o = pads ? 4 : 3;
    pool->output(0)->setType(rt::TensorType{rt::DType::I8, {1, 16, o, o}, rt::Layout::RowMajor});
    return g;
  };
  auto why = [](const ir::Graph& g) { return whyNotOffloadablePool(*g.findNode("pool")); };
  EXPECT_EQ(why(*build(0, true)), "");
  EXPECT_EQ(why(*build(-128, false)), "");
  EXPECT_NE(why(*build(-128, true)).find("can be negative"), std::string::npos);
  // A fused addition's output can be negative whatever the convolution's clip.
  auto fused = build(0, true);
  fused->findNode("conv")->attrs().set("post_add", int64_t{1});
  EXPECT_NE(why(*fused).find("can be negative"), std::string::npos);
}

}  // namespace
}  // namespace vdla::accel
