// Generated convolution programs against vdla.QConv restated naively: random
// layers (strides, paddings, kernel shapes, residuals, every requantisation
// parameter neutral/immediate/vector), chosen and random tilings, latency
// hiding on and off, on every shipped-and-simulated config and every device
// backend of this build.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>

#include "accel_test_util.h"
#include "vdla/compiler/accel/border_correction.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/hw/config.h"

namespace vdla::accel {
namespace {

using test::LayerData;

// A random tiling of the layer that fits (rows, columns, oc and ic blocks),
// or the chosen one.
TilePlan randomPlan(const ConvLayer& L, const hw::HwConfig& cfg, bool lh, std::mt19937& rng) {
  TilePlan chosen = chooseTiling(L, cfg, lh);
  const LayerBlocks b = layerBlocks(L, cfg);
  for (int attempt = 0; attempt < 20; ++attempt) {
    TilePlan p = chosen;
    p.rows = std::uniform_int_distribution<int64_t>(1, L.oh)(rng);
    // (Narrower than the layer every other time: edge column tiles.)
    if (rng() % 2) p.cols = std::uniform_int_distribution<int64_t>(1, L.ow)(rng);
    p.oc_blocks = std::uniform_int_distribution<int64_t>(1, b.out_blocks)(rng);
    p.ic_blocks = std::uniform_int_distribution<int64_t>(1, b.in_blocks)(rng);
    if (b.residual_via_input && !p.dwgemm) p.residual_via_input = rng() % 2;
    if (estimatePlan(L, p, cfg).fits) return p;
  }
  return chosen;
}

// Layer k's plan: odd layers a random tiling, even ones the chosen; none
// where no tiling fits.
std::optional<TilePlan> planOf(const ConvLayer& L, const hw::HwConfig& cfg, bool lh, int k, std::mt19937& rng) {
  try {
    return (k % 2) ? randomPlan(L, cfg, lh, rng) : chooseTiling(L, cfg, lh);
  } catch (const DoesNotFit&) {
    return std::nullopt;
  }
}

void checkLayer(driver::Device& dev, const ConvLayer& L, const TilePlan& plan, const LayerData& d,
                const std::string& what) {
  const ConvProgram prog = generateConvProgram(L, plan, dev.config(), 0);
  ASSERT_NO_THROW(checkTokens(prog.program.insns, dev.config(), L.name)) << what;
  const rt::Tensor got = test::runOnDevice(dev, L, prog, d);
  const rt::Tensor want = test::naiveQConv(L, d);
  ASSERT_EQ(got.numElements(), want.numElements());
  for (int64_t i = 0; i < got.numElements(); ++i)
    ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i])
        << what << ": element " << i << " of " << rt::shapeToString(want.shape()) << " (tile " << plan.rows << "x"
        << plan.oc_blocks << "x" << plan.ic_blocks << ", threads " << plan.threads << (plan.dwgemm ? ", DWGEMM" : "")
        << ")";
}

std::string describe(const ConvLayer& L) {
  return "n" + std::to_string(L.n) + " c" + std::to_string(L.c) + " " + std::to_string(L.h) + "x" +
         std::to_string(L.w) + " o" + std::to_string(L.o) + " k" + std::to_string(L.kh) + "x" + std::to_string(L.kw) +
         " s" + std::to_string(L.sh) + "," + std::to_string(L.sw) + " pads " + std::to_string(L.pad_top) + "," +
         std::to_string(L.pad_left) + "," + std::to_string(L.pad_bottom) + "," + std::to_string(L.pad_right) +
         (L.group > 1 ? " group " + std::to_string(L.group) : "") + (L.residual ? " residual" : "");
}

class ConvCodegen : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(ConvCodegen, RandomLayersMatchNaiveDefinition) {
  const auto& [backend, config] = GetParam();
  const hw::HwConfig cfg = hw::loadConfig(config);
  auto dev = driver::createDevice(backend, cfg);
  // The cycle-accurate device is ~20x slower: fewer, smaller layers.
  const int count = backend == "fsim" ? 60 : 8;
  std::mt19937 rng(backend == "fsim" ? 1234 : 99);
  int unfit = 0;  // layers with more parameter vectors than tiny's accumulators hold
  for (int k = 0; k < count; ++k) {
    const ConvLayer L = test::randomLayer(rng);
    const LayerData d = test::randomData(L, rng);
    try {
      for (bool lh : {true, false}) chooseTiling(L, cfg, lh);
    } catch (const DoesNotFit&) {
      ++unfit;
      continue;
    }
    // The plans draw from their own generator: how many draws a random plan
    // takes depends on the cost model, which must not change the layers.
    std::mt19937 plan_rng(static_cast<uint32_t>(k));
    for (bool lh : {true, false}) {
      const TilePlan plan = (k % 2) ? randomPlan(L, cfg, lh, plan_rng) : chooseTiling(L, cfg, lh);
      test::fillAccumulators(*dev, plan_rng);  // what another program left there
      checkLayer(*dev, L, plan, d,
                 "layer " + std::to_string(k) + " (" + describe(L) + ") on " + backend + "/" + config);
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_LE(unfit, count / 10) << "too few random layers fit config " << config;
}

// post_add layers (a quantised addition fused into the convolution that
// feeds it, fuse_additions.h): the requantised output and R added in the
// ALU after the GEMMs, with additions' multipliers (about 2^shift).
TEST_P(ConvCodegen, FusedAdditionsMatchNaiveDefinition) {
  const auto& [backend, config] = GetParam();
  const hw::HwConfig cfg = hw::loadConfig(config);
  auto dev = driver::createDevice(backend, cfg);
  const int count = backend == "fsim" ? 24 : 4;
  std::mt19937 rng(backend == "fsim" ? 4321 : 17);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int checked = 0;
  for (int k = 0; k < count; ++k) {
    ConvLayer L = k % 3 == 2 ? test::randomDepthwiseLayer(rng, 3) : test::randomLayer(rng, false);
    L.residual = true;
    L.residual_shift = 0;
    L.post_add = true;
    L.add_shift = static_cast<int32_t>(pick(0, 23));
    const int64_t unit = int64_t{1} << L.add_shift;
    L.add_y_mult = static_cast<int32_t>(pick(-unit, unit));
    L.residual_mult.assign(static_cast<size_t>(L.o), static_cast<int32_t>(pick(-unit, unit)));
    L.add_offset = static_cast<int32_t>(pick(-64 * unit, 64 * unit));
    // The sums must stay inside int32 (the accelerator refuses other layers).
    if (128 * (std::llabs(int64_t{L.add_y_mult}) + std::llabs(int64_t{L.residual_mult[0]})) +
            std::llabs(int64_t{L.add_offset}) + unit / 2 >
        INT32_MAX) {
      L.add_offset = 0;
      L.add_y_mult /= 2;
    }
    const LayerData d = test::randomData(L, rng);
    std::mt19937 plan_rng(static_cast<uint32_t>(k));
    for (bool lh : {true, false}) {
      const std::optional<TilePlan> plan = planOf(L, cfg, lh, k, plan_rng);
      if (!plan) continue;
      checkLayer(*dev, L, *plan, d,
                 "fused layer " + std::to_string(k) + " (" + describe(L) + ") on " + backend + "/" + config);
      if (HasFatalFailure()) return;
      ++checked;
    }
  }
  EXPECT_GE(checked, count) << "too few fused layers fit config " << config;
}

// The same after onnxruntime's float requantisation (FREQ), which only
// zcu104 of the shipped configs has: MobileNetV2's fused layers there.
TEST(ConvCodegen, FusedAdditionsAfterFloatRequantisationMatchNaiveDefinition) {
  const hw::HwConfig cfg = hw::loadConfig("zcu104");
  ASSERT_TRUE(cfg.float_requant);
  auto dev = driver::createDevice("fsim", cfg);
  std::mt19937 rng(99);
  for (int k = 0; k < 12; ++k) {
    ConvLayer L = k % 3 == 2 ? test::randomDepthwiseLayer(rng, 3) : test::randomLayer(rng, false);
    test::floatRequantLike(L, rng);
    L.residual = true;
    L.residual_shift = 0;
    L.post_add = true;
    L.add_shift = 23;  // an addition's form: multipliers about 2^22
    L.add_y_mult = std::uniform_int_distribution<int32_t>(1 << 21, 3 << 21)(rng);
    L.residual_mult.assign(static_cast<size_t>(L.o), std::uniform_int_distribution<int32_t>(1 << 21, 3 << 21)(rng));
    L.add_offset = std::uniform_int_distribution<int32_t>(-(1 << 28), 1 << 28)(rng);
    const LayerData d = test::randomData(L, rng);
    for (bool lh : {true, false}) {
      checkLayer(*dev, L, chooseTiling(L, cfg, lh), d,
                 "fused float layer " + std::to_string(k) + " (" + describe(L) + ")");
      if (HasFatalFailure()) return;
    }
  }
}

// A residual through INP (TilePlan::residual_via_input): R loaded by the load
// module beside the first input tile and added to the zeroed accumulators by
// a GEMM over an identity block (one per oc block of an interleaved entry on
// ultra96), on random layers whose R starts the accumulators, with random
// tilings (edge rows, columns and oc tiles) and both buffer modes.
TEST_P(ConvCodegen, ResidualThroughInputMatchesNaiveDefinition) {
  const auto& [backend, config] = GetParam();
  const hw::HwConfig cfg = hw::loadConfig(config);
  auto dev = driver::createDevice(backend, cfg);
  const int count = backend == "fsim" ? 40 : 6;
  std::mt19937 rng(backend == "fsim" ? 2468 : 135);
  int checked = 0, eligible = 0;
  for (int k = 0; k < count * 100 && checked < 2 * count; ++k) {
    ConvLayer L = test::randomLayer(rng);
    if (!L.residual || !layerBlocks(L, cfg).residual_via_input) continue;
    ++eligible;
    const LayerData d = test::randomData(L, rng);
    std::mt19937 plan_rng(static_cast<uint32_t>(k));
    for (bool lh : {true, false}) {
      std::optional<TilePlan> plan = planOf(L, cfg, lh, k, plan_rng);
      if (!plan) continue;
      plan->residual_via_input = true;
      if (!estimatePlan(L, *plan, cfg).fits) continue;
      test::fillAccumulators(*dev, rng);  // the GEMM adds R to accumulators the program zeroed
      checkLayer(*dev, L, *plan, d,
                 "layer " + std::to_string(k) + " (" + describe(L) + ", R through INP) on " + backend + "/" + config);
      if (HasFatalFailure()) return;
      ++checked;
    }
  }
  // Only configs whose INP entries hold whole output entries or interleaved
  // groups of them take the form.
  if (configInterleave(cfg) * cfg.block_out == cfg.block_in) {
    EXPECT_GE(checked, count) << "too few layers took the residual through INP on " << config;
  } else {
    EXPECT_EQ(eligible, 0) << config << " has block_in " << cfg.block_in << " and block_out " << cfg.block_out;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ConvCodegen,
                         ::testing::Combine(::testing::ValuesIn(driver::deviceBackends()),
                                            ::testing::Values("pynq", "tiny", "ultra96")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

TEST(ConvCodegen, Im2colFormMatchesDirect) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  auto dev = driver::createDevice("fsim", cfg);
  std::mt19937 rng(7);
  for (int k = 0; k < 10; ++k) {
    ConvLayer L = test::randomLayer(rng);
    L.group = 1;
    L.c = std::uniform_int_distribution<int64_t>(1, 5)(rng);
    L.weights.resize(static_cast<size_t>(L.o * L.c * L.kh * L.kw));
    const LayerData d = test::randomData(L, rng);
    const ConvLayer folded = toIm2colLayer(L);
    EXPECT_EQ(folded.c, L.c * L.kh * L.kw);
    const ConvProgram prog = generateConvProgram(folded, chooseTiling(folded, cfg, true), cfg, 0);
    const rt::Tensor got = test::runOnDevice(*dev, folded, prog, d);
    const rt::Tensor want = test::naiveQConv(L, d);
    for (int64_t i = 0; i < got.numElements(); ++i)
      ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << describe(L) << " element " << i;
  }
}

// The space-to-depth form (a strided layer as a stride-1 one over
// rearranged input, zero taps past the window) on random strided layers with
// few channels, any padding and pad value, on every device backend.
TEST(ConvCodegen, SpaceToDepthFormMatchesDirect) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  std::mt19937 rng(11);
  for (const std::string& backend : driver::deviceBackends()) {
    auto dev = driver::createDevice(backend, cfg);
    for (int k = 0; k < (backend == "fsim" ? 12 : 3); ++k) {
      ConvLayer L = test::randomLayer(rng, false);
      L.group = 1;
      L.c = std::uniform_int_distribution<int64_t>(1, 5)(rng);
      L.sh = L.sw = std::uniform_int_distribution<int64_t>(2, 3)(rng);
      L.oh = (L.h + L.pad_top + L.pad_bottom - L.kh) / L.sh + 1;
      L.ow = (L.w + L.pad_left + L.pad_right - L.kw) / L.sw + 1;
      for (auto* v : {&L.bias1, &L.mult, &L.bias2}) v->resize(static_cast<size_t>(L.o), v->front());
      L.weights.resize(static_cast<size_t>(L.o * L.c * L.kh * L.kw));
      const LayerData d = test::randomData(L, rng);
      ASSERT_TRUE(hasSpaceToDepthForm(L));
      const ConvLayer s2d = toSpaceToDepthLayer(L);
      EXPECT_EQ(s2d.c, L.c * L.sh * L.sh);
      EXPECT_EQ(s2d.sh, 1);
      // The host's input keeps its size, give or take the padding and a last partial block.
      EXPECT_LE(s2d.c * s2d.h * s2d.w,
                L.c * (L.h + L.pad_top + L.pad_bottom + L.sh) * (L.w + L.pad_left + L.pad_right + L.sw));
      const ConvProgram prog = generateConvProgram(s2d, chooseTiling(s2d, cfg, true), cfg, 0);
      const rt::Tensor got = test::runOnDevice(*dev, s2d, prog, d);
      const rt::Tensor want = test::naiveQConv(L, d);
      ASSERT_EQ(got.numElements(), want.numElements());
      for (int64_t i = 0; i < got.numElements(); ++i)
        ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i])
            << describe(L) << " pad value " << L.pad_value << " on " << backend << ", element " << i;
    }
  }
}

// The column-unfolded forms (u columns of a few-channel layer's input in one
// entry, a kernel row in ceil(KW/u) GEMMs), of the layer itself (stride 1)
// and of its space-to-depth form (strided), on random layers with any
// padding and pad value, residuals, chosen and random tilings, on pynq (16
// lanes) and ultra96 (32), on every device backend.
TEST(ConvCodegen, ColumnUnfoldedFormsMatchDirect) {
  std::mt19937 rng(17);
  for (const std::string config : {"pynq", "ultra96"}) {
    const hw::HwConfig cfg = hw::loadConfig(config);
    for (const std::string& backend : driver::deviceBackends()) {
      auto dev = driver::createDevice(backend, cfg);
      int unfolded = 0;
      for (int k = 0; k < (backend == "fsim" ? 16 : 4); ++k) {
        ConvLayer L = test::randomLayer(rng);
        L.group = 1;
        L.c = std::uniform_int_distribution<int64_t>(1, 5)(rng);
        L.kw = std::uniform_int_distribution<int64_t>(2, 7)(rng);
        L.sh = L.sw = k % 2 ? std::uniform_int_distribution<int64_t>(2, 3)(rng) : 1;
        L.pad_left = std::min(L.pad_left, L.kw - 1);
        L.pad_right = std::min(L.pad_right, L.kw - 1);
        L.w = std::max(L.w, L.kw);
        L.oh = (L.h + L.pad_top + L.pad_bottom - L.kh) / L.sh + 1;
        L.ow = (L.w + L.pad_left + L.pad_right - L.kw) / L.sw + 1;
        for (auto* v : {&L.bias1, &L.mult, &L.bias2}) v->resize(static_cast<size_t>(L.o), v->front());
        if (!L.residual_mult.empty()) L.residual_mult.resize(static_cast<size_t>(L.o), L.residual_mult.front());
        L.weights.resize(static_cast<size_t>(L.o * L.c * L.kh * L.kw));
        for (int8_t& v : L.weights) v = static_cast<int8_t>(rng());
        const LayerData d = test::randomData(L, rng);
        const ConvLayer base = L.sw > 1 ? toSpaceToDepthLayer(L) : L;
        const int64_t u = columnUnfoldOf(base, cfg);
        if (u < 2) continue;
        const ConvLayer folded = toColumnUnfoldedLayer(base, u);
        EXPECT_EQ(folded.c, base.c * u);
        EXPECT_EQ(folded.kw, (base.kw + u - 1) / u);
        EXPECT_LE(folded.c, int64_t(cfg.block_in));
        std::mt19937 plan_rng(static_cast<uint32_t>(k));
        const std::optional<TilePlan> plan = planOf(folded, cfg, k % 3 != 0, k, plan_rng);
        ASSERT_TRUE(plan) << describe(L) << " unfolded by " << u;
        const ConvProgram prog = generateConvProgram(folded, *plan, cfg, 0);
        const rt::Tensor got = test::runOnDevice(*dev, folded, prog, d);
        const rt::Tensor want = test::naiveQConv(L, d);
        ASSERT_EQ(got.numElements(), want.numElements());
        for (int64_t i = 0; i < got.numElements(); ++i)
          ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i])
              << describe(L) << " unfolded by " << u << " on " << backend << "/" << config << ", element " << i;
        ++unfolded;
      }
      EXPECT_GE(unfolded, backend == "fsim" ? 8 : 2) << backend << "/" << config;
    }
  }
}

// On a config whose block_in is twice its block_out (ultra96: 1x32x16) a
// layer writes its output in block_in entries, two oc blocks interleaved per
// entry, so that the next layer can read it where it lies. Dense layers always
// do, and so do depthwise ones (each pair of oc blocks reads one input block;
// a pair past the channels has zero weights). Random dense and depthwise
// layers, chosen and random tilings, with and without latency hiding, stay
// exact on every device backend. A grouped layer whose pairs read different
// input blocks keeps block_out entries.
TEST(ConvCodegen, InterleavedOutputsMatchNaiveDefinition) {
  const hw::HwConfig cfg = hw::loadConfig("ultra96");
  ASSERT_EQ(cfg.block_in, 2 * cfg.block_out);
  std::mt19937 rng(23);
  int filled_depthwise = 0, padded_depthwise = 0;
  for (const std::string& backend : driver::deviceBackends()) {
    auto dev = driver::createDevice(backend, cfg);
    for (int k = 0; k < (backend == "fsim" ? 24 : 4); ++k) {
      const bool depthwise = k % 2 == 1;
      ConvLayer L = depthwise ? test::randomDepthwiseLayer(rng, 5) : test::randomLayer(rng);
      if (depthwise && k % 4 == 1) {
        // Channels in whole block_in entries.
        L.c = L.o = L.group = 32 * std::uniform_int_distribution<int64_t>(1, 3)(rng);
        for (auto* v : {&L.bias1, &L.mult, &L.bias2, &L.residual_mult})
          if (!v->empty()) v->resize(static_cast<size_t>(L.o), v->front());
        L.weights.resize(static_cast<size_t>(L.o * L.kh * L.kw), 1);
      }
      const LayerData d = test::randomData(L, rng);
      const int64_t G = outputInterleave(L, cfg);
      // (Other grouped layers interleave when their pairs read the same blocks.)
      if (L.group == 1 || depthwise) {
        EXPECT_EQ(G, 2) << describe(L);
      }
      if (depthwise) ++(L.o % cfg.block_in == 0 ? filled_depthwise : padded_depthwise);
      std::mt19937 plan_rng(static_cast<uint32_t>(k));
      for (bool lh : {true, false}) {
        TilePlan plan = chooseTiling(L, cfg, lh);
        if (k % 3 == 0) {
          // Another oc tile, in whole groups.
          const int64_t groups = outputBlocks(L, cfg) / G;
          TilePlan other = plan;
          other.oc_blocks = G * std::uniform_int_distribution<int64_t>(1, groups)(plan_rng);
          other.rows = std::uniform_int_distribution<int64_t>(1, L.oh)(plan_rng);
          if (estimatePlan(L, other, cfg).fits) plan = other;
        }
        ASSERT_EQ(plan.oc_blocks % G, 0);
        const ConvProgram prog = generateConvProgram(L, plan, cfg, 0);
        EXPECT_EQ(prog.y_block, G * cfg.block_out);
        ASSERT_NO_THROW(checkTokens(prog.program.insns, cfg, L.name));
        const rt::Tensor got = test::runOnDevice(*dev, L, prog, d);
        const rt::Tensor want = test::naiveQConv(L, d);
        ASSERT_EQ(got.numElements(), want.numElements());
        for (int64_t i = 0; i < got.numElements(); ++i)
          ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i])
              << describe(L) << " on " << backend << ", tile " << plan.rows << "x" << plan.cols << "x" << plan.oc_blocks
              << ", threads " << plan.threads << ", element " << i;
      }
    }
  }
  EXPECT_GT(filled_depthwise, 0);
  EXPECT_GT(padded_depthwise, 0);

  // Two groups of 64 input channels, 16 outputs each: oc block 1 reads input
  // blocks 2 and 3, block 0 blocks 0 and 1.
  ConvLayer split = test::randomLayer(rng, false);
  split.c = 128;
  split.o = 32;
  split.group = 2;
  EXPECT_EQ(outputInterleave(split, cfg), 1);
}

// Four output blocks per input entry (1x64x16, a shape the explorer sweeps):
// random dense and depthwise layers with chosen and random plans, residuals
// and edge tiles, exact on fsim.
TEST(ConvCodegen, FourWayInterleaveMatchesNaiveDefinition) {
  const hw::HwConfig cfg = hw::parseConfig(R"({
    "name": "interleave4",
    "target": {"board": "zcu104", "part": "xczu7ev-ffvc1156-2-e", "clock_mhz": 300},
    "gemm": {"batch": 1, "block_in": 64, "block_out": 16},
    "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
    "buffers_kib": {"uop": 32, "input": 64, "weight": 512, "accumulator": 128, "output": 32},
    "axi": {"data_bits": 128},
    "queues": {"command_depth": 128, "token_depth": 32},
    "isa": {"dram_addr_bits": 32, "xfer_size_bits": 16, "pad_bits": 4, "loop_iter_bits": 14, "alu_imm_bits": 16},
    "extensions": {"fused_requant": true}
  })",
                                           "interleave4");
  auto dev = driver::createDevice("fsim", cfg);
  std::mt19937 rng(41);
  for (int k = 0; k < 30; ++k) {
    const ConvLayer L = k % 3 == 2 ? test::randomDepthwiseLayer(rng, 3) : test::randomLayer(rng);
    if (L.group == 1 || k % 3 == 2) {
      EXPECT_EQ(outputInterleave(L, cfg), 4) << describe(L);
    }
    const LayerData d = test::randomData(L, rng);
    std::mt19937 plan_rng(static_cast<uint32_t>(k));
    for (bool lh : {true, false}) {
      TilePlan plan = chooseTiling(L, cfg, lh);
      const int64_t G = outputInterleave(L, cfg);
      TilePlan other = plan;
      other.oc_blocks = G * std::uniform_int_distribution<int64_t>(1, outputBlocks(L, cfg) / G)(plan_rng);
      other.rows = std::uniform_int_distribution<int64_t>(1, L.oh)(plan_rng);
      other.cols = std::uniform_int_distribution<int64_t>(1, L.ow)(plan_rng);
      if (k % 2 && estimatePlan(L, other, cfg).fits) plan = other;
      checkLayer(*dev, L, plan, d, "layer " + std::to_string(k) + " (" + describe(L) + ") on interleave4");
      if (HasFatalFailure()) return;
    }
  }
}

// A shipped config with the gemm_requant extension added (the same config
// whether or not it ships with it).
hw::HwConfig withGemmRequant(const std::string& name) {
  std::string text = *hw::builtinConfigText(name);
  if (text.find("\"gemm_requant\"") == std::string::npos) {
    const size_t at = text.find("\"alu_bias_clear\": true");
    if (at == std::string::npos) throw std::logic_error(name + " has no alu_bias_clear");
    text.insert(at, "\"gemm_requant\": true, ");
  }
  return hw::parseConfig(text, name + "+gemm_requant");
}

// gemm_requant: layers whose whole reduction is one GEMM per oc block
// requantise in it (a SETREQ and a requantising GEMM per block, no ALU pass
// after the GEMMs but over the outputs a border correction reaches). Random
// such layers (dense, strided, padded with zeros or a nonzero value;
// REQ or FREQ), chosen and random tilings, with and without latency hiding,
// stay exact on every device backend, on a square array and on ultra96's
// interleaved 1x32x16.
TEST(ConvCodegen, RequantisingGemmsMatchNaiveDefinition) {
  for (const char* shipped : {"pynq", "ultra96"}) {
    const std::string name = shipped;
    const hw::HwConfig cfg = withGemmRequant(name);
    std::mt19937 rng(name == "pynq" ? 71 : 72);
    int folded = 0, chunked = 0, corrected = 0;
    for (const std::string& backend : driver::deviceBackends()) {
      auto dev = driver::createDevice(backend, cfg);
      for (int k = 0; k < (backend == "fsim" ? 64 : 8); ++k) {
        ConvLayer L = test::randomLayer(rng, false);
        // The form a lone REQ with bias_clear takes: no first shift, no
        // second bias; half of the layers pad with zeros (the others need
        // border corrections, which then requantise their outputs again).
        L.shift1 = 0;
        std::fill(L.bias2.begin(), L.bias2.end(), 0);
        L.pad_value = k % 2 ? std::uniform_int_distribution<int32_t>(1, 127)(rng) * (k % 4 == 1 ? 1 : -1) : 0;
        // A bias and a multiplier per channel (uniform ones would be
        // immediates, and a zero bias needs no bias_clear).
        for (int64_t o = 0; o < L.o; ++o) {
          L.bias1[static_cast<size_t>(o)] = std::uniform_int_distribution<int32_t>(-5000, 5000)(rng);
          if (!L.wide_product && !L.float_requant)
            L.mult[static_cast<size_t>(o)] = std::uniform_int_distribution<int32_t>(-3000, 70000)(rng);
        }
        const LayerBlocks b = layerBlocks(L, cfg);
        if (!b.gemm_requant_form) continue;
        const LayerData d = test::randomData(L, rng);
        std::mt19937 plan_rng(static_cast<uint32_t>(k));
        for (bool lh : {true, false}) {
          TilePlan plan = (k % 2) ? randomPlan(L, cfg, lh, plan_rng) : chooseTiling(L, cfg, lh);
          plan.keep_alu_pass = false;  // where the cost model kept the pass (DepthwiseGemm tests that path)
          const ConvProgram prog = generateConvProgram(L, plan, cfg, 0);
          int setreqs = 0, requantising_alus = 0, requant_gemms = 0;
          for (const hw::Instruction& insn : prog.program.insns) {
            setreqs += insn.opcode == hw::Opcode::SetReq;
            requantising_alus +=
                insn.opcode == hw::Opcode::Alu && (insn.alu_op == hw::AluOp::Req || insn.alu_op == hw::AluOp::FReq);
            requant_gemms += (insn.opcode == hw::Opcode::Gemm || insn.opcode == hw::Opcode::DwGemm) && insn.requant;
          }
          if (requantisesInGemm(b, plan)) {
            ++folded;
            EXPECT_GT(setreqs, 0);
            EXPECT_EQ(setreqs, requant_gemms);
            EXPECT_EQ(requantising_alus > 0, !borderCorrections(L).empty()) << describe(L);
            corrected += !borderCorrections(L).empty();
          } else {
            ++chunked;
            EXPECT_EQ(setreqs + requant_gemms, 0);
          }
          checkLayer(*dev, L, plan, d,
                     "layer " + std::to_string(k) + " (" + describe(L) + ") on " + backend + "/" + cfg.name);
          if (HasFatalFailure()) return;
        }
      }
    }
    EXPECT_GT(folded, 10) << name;
    EXPECT_GT(corrected, 4) << name;  // and layers with border corrections
    EXPECT_GT(chunked, 0) << name;    // random plans that split the reduction keep the ALU pass
  }
}

// An interleaved output plane is G times as many entries: the STORE's row
// pitch must still fit its field, or the layer is refused (and runs on the
// CPU) rather than failing when its program is encoded.
TEST(Tiling, InterleavedPlanesKeepTheirStridesInTheTransferFields) {
  std::mt19937 rng(9);
  ConvLayer L = test::randomLayer(rng, false);
  L.group = 1;
  L.c = L.o = 32;
  L.kh = L.kw = L.sh = L.sw = 1;
  L.pad_top = L.pad_left = L.pad_bottom = L.pad_right = 0;
  L.h = L.oh = 4096;
  L.w = L.ow = 10;  // 40,960 pixels: 81,920 entries at two per pixel, past 16 bits
  for (auto* v : {&L.bias1, &L.mult, &L.bias2}) v->resize(32, v->empty() ? 0 : v->front());
  L.weights.assign(32 * 32, 1);
  const hw::HwConfig u96 = hw::loadConfig("ultra96");
  ASSERT_EQ(u96.xfer_size_bits, 16u);
  try {
    chooseTiling(L, u96, true);
    FAIL() << "a plane of 81,920 entries was tiled";
  } catch (const DoesNotFit& e) {
    EXPECT_NE(std::string(e.what()).find("transfer size"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(chooseTiling(L, hw::loadConfig("pynq"), true));  // one entry per pixel
}

// An oc tile that splits an interleave group is refused by the cost model.
TEST(Tiling, OcTilesKeepInterleaveGroupsWhole) {
  const hw::HwConfig cfg = hw::loadConfig("ultra96");
  std::mt19937 rng(5);
  ConvLayer L = test::randomLayer(rng, false);
  L.group = 1;
  ASSERT_EQ(outputInterleave(L, cfg), 2);
  TilePlan p = chooseTiling(L, cfg, true);
  p.oc_blocks = 1;
  const CostEstimate e = estimatePlan(L, p, cfg);
  EXPECT_FALSE(e.fits);
  EXPECT_NE(e.why_not.find("interleave"), std::string::npos) << e.why_not;
}

// ResNet-scale layers tile onto every shipped config, with latency hiding
// splitting the buffers and without.
TEST(Tiling, ResNetLayersFitEveryConfig) {
  struct Shape {
    int64_t c, h, o, k, s;
  };
  const Shape shapes[] = {{64, 56, 64, 3, 1},  {64, 56, 128, 3, 2},   {128, 28, 128, 3, 1},  {256, 14, 512, 3, 2},
                          {512, 7, 512, 3, 1}, {256, 14, 1024, 1, 1}, {2048, 1, 1000, 1, 1}, {147, 112, 64, 1, 1}};
  for (const std::string& name : hw::builtinConfigNames()) {
    const hw::HwConfig cfg = hw::loadConfig(name);
    for (const Shape& s : shapes)
      for (bool lh : {true, false}) {
        ConvLayer L;
        L.name = "layer";
        L.c = s.c;
        L.h = L.w = s.h;
        L.o = s.o;
        L.kh = L.kw = s.k;
        L.sh = L.sw = s.s;
        L.pad_top = L.pad_left = L.pad_bottom = L.pad_right = s.k / 2;
        L.oh = L.ow = (s.h + 2 * (s.k / 2) - s.k) / s.s + 1;
        L.bias1.assign(static_cast<size_t>(L.o), 0);
        L.mult.assign(static_cast<size_t>(L.o), 3);
        L.bias2 = L.bias1;
        L.weights.assign(static_cast<size_t>(L.o * L.c * L.kh * L.kw), 1);
        CostEstimate e;
        TilePlan p;
        ASSERT_NO_THROW(p = chooseTiling(L, cfg, lh, &e)) << name << " c" << s.c << " o" << s.o;
        EXPECT_TRUE(e.fits);
        EXPECT_EQ(p.threads, lh ? 2 : 1);
        EXPECT_GE(e.cycles, e.gemm_cycles);
      }
  }
}

TEST(TokenCheck, FindsUnbalancedTokensAndDeadlocks) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  std::mt19937 rng(3);
  ConvLayer L = test::randomLayer(rng, false);
  L.group = 1;
  L.weights.resize(static_cast<size_t>(L.o * L.c * L.kh * L.kw));
  L.oh = std::max<int64_t>(L.oh, 1);
  TilePlan plan = chooseTiling(L, cfg, true);
  plan.rows = 1;  // several tiles, so that tokens flow
  const ConvProgram prog = generateConvProgram(L, plan, cfg, 0);
  const TokenCheckResult ok = checkTokens(prog.program.insns, cfg, "ok");
  EXPECT_GT(ok.tokens[0], 0u);

  // Dropping a GEMM's pop leaves a token behind.
  std::vector<hw::Instruction> broken = prog.program.insns;
  auto gemm =
      std::find_if(broken.begin(), broken.end(), [](const hw::Instruction& i) { return i.opcode == hw::Opcode::Gemm; });
  ASSERT_NE(gemm, broken.end());
  gemm->pop_prev = false;
  try {
    checkTokens(broken, cfg, "broken");
    FAIL() << "unbalanced tokens not found";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("left in load->compute"), std::string::npos) << e.what();
  }
  // A store that pops a token nobody pushes deadlocks.
  broken = prog.program.insns;
  auto store = std::find_if(broken.begin(), broken.end(),
                            [](const hw::Instruction& i) { return i.opcode == hw::Opcode::Store; });
  ASSERT_NE(store, broken.end());
  for (auto& i : broken)
    if (i.opcode == hw::Opcode::Alu) i.push_next = false;
  try {
    checkTokens(broken, cfg, "deadlocked");
    FAIL() << "deadlock not found";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("program 'deadlocked': deadlock:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("store waits at instruction"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace vdla::accel
