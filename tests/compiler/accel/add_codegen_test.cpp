// Quantised additions on the accelerator against the CPU's own kernel: random
// scales and zero points (a QLinearAdd node each, through the same placement
// code the compiler runs), random shapes with part-full channel blocks,
// chosen and random tile sizes, latency hiding on and off, on pynq (REQ) and
// tiny (RSHR and CLIP) and every device backend of this build. Plus the exact
// form search, the cost model against the cycle-accurate simulator and the
// placement rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "accel_test_util.h"
#include "vdla/compiler/accel/add_layer.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::accel {
namespace {

using test::scalarF32;
using test::scalarI8;

struct AddParams {
  float sa = 1, sb = 1, sc = 1;
  int8_t za = 0, zb = 0, zc = 0;
};

// A graph holding one QLinearAdd of two int8 inputs of `shape` (`b_shape` for B).
std::unique_ptr<ir::Graph> addGraph(const AddParams& p, const rt::Shape& shape, const rt::Shape& b_shape,
                                    bool constant_scale = true) {
  auto g = std::make_unique<ir::Graph>();
  ir::Value* a = g->addInput("a", rt::TensorType{rt::DType::I8, shape, rt::Layout::RowMajor});
  ir::Value* b = g->addInput("b", rt::TensorType{rt::DType::I8, b_shape, rt::Layout::RowMajor});
  ir::Value* sa = constant_scale ? g->addConstant("sa", scalarF32(p.sa))
                                 : g->addInput("sa", rt::TensorType{rt::DType::F32, {}, rt::Layout::RowMajor});
  ir::Node* add = g->addNode("QLinearAdd",
                             {a, sa, g->addConstant("za", scalarI8(p.za)), b, g->addConstant("sb", scalarF32(p.sb)),
                              g->addConstant("zb", scalarI8(p.zb)), g->addConstant("sc", scalarF32(p.sc)),
                              g->addConstant("zc", scalarI8(p.zc))},
                             1, {}, "add", "com.microsoft");
  add->output(0)->setType(rt::TensorType{rt::DType::I8, shape, rt::Layout::RowMajor});
  g->addOutput(add->output(0));
  return g;
}

AddParams randomParams(std::mt19937& rng) {
  std::uniform_real_distribution<float> scale(0.005f, 0.2f);
  std::uniform_int_distribution<int> zp(-128, 127);
  AddParams p;
  p.sa = scale(rng);
  p.sb = scale(rng);
  p.sc = scale(rng);
  p.za = static_cast<int8_t>(zp(rng));
  p.zb = static_cast<int8_t>(zp(rng));
  p.zc = static_cast<int8_t>(zp(rng));
  return p;
}

rt::Tensor randomTensor(const rt::Shape& shape, std::mt19937& rng) {
  rt::Tensor t(rt::DType::I8, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<int8_t>()[i] = static_cast<int8_t>(rng() % 256);
  return t;
}

// The CPU's kernel (what the step would run without the accelerator).
rt::Tensor cpuAdd(const AddParams& p, const rt::Tensor& a, const rt::Tensor& b) {
  rt::Tensor sa = scalarF32(p.sa), sb = scalarF32(p.sb), sc = scalarF32(p.sc);
  rt::Tensor za = scalarI8(p.za), zb = scalarI8(p.zb), zc = scalarI8(p.zc);
  rt::Tensor c(rt::DType::I8, a.shape());
  rt::KernelArgs args;
  args.inputs = {&a, &sa, &za, &b, &sb, &zb, &sc, &zc};
  args.outputs = {&c};
  const rt::AttributeMap attrs;
  args.attrs = &attrs;
  rt::registerReferenceKernels(rt::KernelRegistry::global());
  rt::KernelRegistry::global().get(rt::referenceKernelName("com.microsoft.QLinearAdd"))(args);
  return c;
}

rt::Tensor runAdd(driver::Device& dev, const AddLayer& L, const TilePlan& plan, const rt::Tensor& a,
                  const rt::Tensor& b, sim::ExecutionStats* stats = nullptr) {
  const hw::HwConfig& cfg = dev.config();
  const ConvProgram prog = generateAddProgram(L, plan, cfg, 0, standaloneAddPlacement(L, cfg));
  checkTokens(prog.program.insns, cfg, L.name);
  return test::runProgram(dev, prog, {{a, prog.y_block, prog.x_offset}, {b, prog.y_block, prog.r_offset}},
                          {L.n, L.c, L.h, L.w}, stats);
}

class AddCodegen : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(AddCodegen, RandomAdditionsMatchTheCpuKernel) {
  const auto& [backend, config] = GetParam();
  const hw::HwConfig cfg = hw::loadConfig(config);
  auto dev = driver::createDevice(backend, cfg);
  const int count = backend == "fsim" ? 30 : 4;
  std::mt19937 rng(backend == "fsim" ? 2468 : 13);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int checked = 0, through_input = 0;
  for (int k = 0; k < count; ++k) {
    const AddParams p = randomParams(rng);
    const rt::Shape shape = {pick(1, 2), pick(1, 40), pick(1, 13), pick(1, 13)};
    auto g = addGraph(p, shape, shape);
    const ir::Node& node = *g->findNode("add");
    const std::string why = whyNotOffloadableAdd(node);
    ASSERT_EQ(why, "") << "addition " << k;
    const AddLayer L = addLayerFromNode(node);
    const rt::Tensor a = randomTensor(shape, rng), b = randomTensor(shape, rng);
    const rt::Tensor want = cpuAdd(p, a, b);
    for (bool lh : {true, false}) {
      const TilePlan chosen = chooseAddTiling(L, cfg, lh);
      // Both forms where the config has the one through INP (pynq).
      for (bool via : {false, true}) {
        TilePlan plan = chosen;
        plan.residual_via_input = via;
        if (!estimateAddPlan(L, plan, cfg).fits) plan.rows = 1;
        if (!estimateAddPlan(L, plan, cfg).fits) {
          EXPECT_TRUE(via && config != "pynq") << "addition " << k << " has no plan of this form on " << config;
          continue;
        }
        if (k % 2) {  // a random tile size that fits
          TilePlan q = plan;
          q.rows = pick(1, plan.rows);
          if (estimateAddPlan(L, q, cfg).fits) plan = q;
        }
        const std::string what = "addition " + std::to_string(k) + " (" + rt::shapeToString(shape) + ") on " + backend +
                                 "/" + config + ", tile " + std::to_string(plan.rows) + " entries, " +
                                 std::to_string(plan.threads) + " threads" + (via ? ", operands through INP" : "");
        rt::Tensor got;
        ASSERT_NO_THROW(got = runAdd(*dev, L, plan, a, b)) << what;
        ASSERT_EQ(got.numElements(), want.numElements()) << what;
        for (int64_t i = 0; i < got.numElements(); ++i)
          ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << what << ": element " << i;
        ++checked;
        through_input += via;
      }
    }
  }
  const bool has_input_form = config == "pynq";
  EXPECT_EQ(checked, (has_input_form ? 4 : 2) * count);
  EXPECT_EQ(through_input, has_input_form ? 2 * count : 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, AddCodegen,
                         ::testing::Combine(::testing::ValuesIn(driver::deviceBackends()),
                                            ::testing::Values("pynq", "tiny", "ultra96")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// The form found reproduces the table it was searched against, pair for
// pair, and a table no affine form gives (one output moved against its
// neighbours) has none.
TEST(ExactAddForm, ReproducesItsTableAndRefusesAnImpossibleOne) {
  std::mt19937 rng(99);
  for (int k = 0; k < 20; ++k) {
    const AddParams p = randomParams(rng);
    rt::Tensor a(rt::DType::I8, {256 * 256}), b(rt::DType::I8, {256 * 256});
    for (int i = 0; i < 256 * 256; ++i) {
      a.data<int8_t>()[i] = static_cast<int8_t>(i / 256 - 128);
      b.data<int8_t>()[i] = static_cast<int8_t>(i % 256 - 128);
    }
    const rt::Tensor c = cpuAdd(p, a, b);
    std::vector<int8_t> table(c.data<int8_t>(), c.data<int8_t>() + c.numElements());
    const double ra = double(p.sa) / p.sc, rb = double(p.sb) / p.sc;
    const double fixed = p.zc - ra * p.za - rb * p.zb;
    const std::optional<IntegerAddForm> f = findExactAddForm(table, ra, rb, fixed);
    ASSERT_TRUE(f.has_value()) << "parameters " << k;
    for (int i = 0; i < 256 * 256; ++i)
      ASSERT_EQ(f->apply(i / 256 - 128, i % 256 - 128), table[size_t(i)]) << "parameters " << k << ", pair " << i;
    // Find an unsaturated output in the middle of the table and move it by two.
    size_t mid = 128 * 256 + 128;
    while (mid < table.size() && (table[mid] <= -120 || table[mid] >= 120)) ++mid;
    if (mid == table.size()) continue;
    table[mid] = static_cast<int8_t>(table[mid] + 2);
    EXPECT_FALSE(findExactAddForm(table, ra, rb, fixed).has_value()) << "parameters " << k;
  }
}

// MobileNetV2's first residual addition (56x56, 24 channels) on the cycle-
// accurate simulator: the cost model's estimate within 5% of the measured cycles.
TEST(AddCodegen, CostModelTracksTheCycleSimulator) {
  const auto backends = driver::deviceBackends();
  if (std::find(backends.begin(), backends.end(), "cycle") == backends.end())
    GTEST_SKIP() << "this build has no cycle-accurate device";
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  std::mt19937 rng(5);
  const AddParams p = randomParams(rng);
  const rt::Shape shape = {1, 24, 56, 56};
  auto g = addGraph(p, shape, shape);
  const AddLayer L = addLayerFromNode(*g->findNode("add"));
  const rt::Tensor a = randomTensor(shape, rng), b = randomTensor(shape, rng);
  auto dev = driver::createDevice("cycle", cfg);
  const rt::Tensor want = cpuAdd(p, a, b);
  // The chosen plan, and the best of the other form.
  CostEstimate chosen_estimate;
  const TilePlan chosen = chooseAddTiling(L, cfg, true, &chosen_estimate);
  TilePlan other = chosen;
  other.residual_via_input = !chosen.residual_via_input;
  CostEstimate other_estimate = estimateAddPlan(L, other, cfg);
  for (int64_t rows = 1; rows <= 2048; ++rows) {
    TilePlan q = other;
    q.rows = rows;
    const CostEstimate e = estimateAddPlan(L, q, cfg);
    if (e.fits && (!other_estimate.fits || e.cycles < other_estimate.cycles)) other = q, other_estimate = e;
  }
  ASSERT_TRUE(other_estimate.fits);
  double measured[2] = {0, 0};
  for (const auto& [plan, estimate] : {std::pair{chosen, chosen_estimate}, std::pair{other, other_estimate}}) {
    sim::ExecutionStats stats;
    const rt::Tensor got = runAdd(*dev, L, plan, a, b, &stats);
    EXPECT_EQ(0, std::memcmp(got.raw(), want.raw(), static_cast<size_t>(want.byteSize())));
    const double err = (estimate.cycles - double(stats.cycles)) / double(stats.cycles);
    EXPECT_LT(std::fabs(err), 0.05) << "estimate " << estimate.cycles << ", measured " << stats.cycles
                                    << (plan.residual_via_input ? " (operands through INP)" : " (LOAD ACC8)");
    measured[plan.residual_via_input] = double(stats.cycles);
  }
  // The operands through INP take the compute module's loads away.
  EXPECT_TRUE(chosen.residual_via_input);
  EXPECT_LT(measured[1], 0.9 * measured[0]) << "LOAD ACC8 " << measured[0] << ", through INP " << measured[1];
}

// Which QLinearAdd nodes run on the accelerator, and why the others do not.
TEST(AddPlacement, SameShapesAndConstantParametersOnly) {
  const AddParams p;
  EXPECT_EQ(whyNotOffloadableAdd(*addGraph(p, {1, 16, 4, 4}, {1, 16, 4, 4})->findNode("add")), "");
  EXPECT_NE(whyNotOffloadableAdd(*addGraph(p, {1, 16, 4, 4}, {1, 16, 1, 1})->findNode("add")).find("broadcasting"),
            std::string::npos);
  EXPECT_NE(whyNotOffloadableAdd(*addGraph(p, {1, 16, 4, 4}, {1, 16, 4, 4}, false)->findNode("add"))
                .find("not constant scalars"),
            std::string::npos);
  EXPECT_NE(whyNotOffloadableAdd(*addGraph(p, {16, 4}, {16, 4})->findNode("add")).find("not int8 NCHW"),
            std::string::npos);
}

}  // namespace
}  // namespace vdla::accel
