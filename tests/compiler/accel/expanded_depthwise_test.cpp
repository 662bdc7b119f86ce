// A 1x1 expansion fused into the depthwise layer it feeds (expanded_depthwise.h)
// against the two layers restated naively one after the other: random pairs
// (expansions of 1 to 40 channels into 1 to 70, depthwise kernels up to the
// config's taps, strides 1 and 2, any padding and zero point, images from 1
// row up) with the chosen band height and random ones, latency hiding on and
// off, on fsim and every other device backend, each program proven free of
// deadlock; the pairs without a fused form say why; the fusion pass takes
// MobileNetV2's pairs only where the config has STORE INP.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "accel_test_util.h"
#include "vdla/compiler/accel/expanded_depthwise.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/driver/device.h"
#include "vdla/hw/config.h"

namespace vdla::accel {
namespace {

int64_t uniform(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// The requantisation a requantising GEMM takes: one REQ with the bias
// (conv_codegen_test's form).
void requantiseInGemm(ConvLayer& L, std::mt19937& rng) {
  L.shift1 = 0;
  L.bias2.assign(size_t(L.o), 0);
  L.bias1.resize(size_t(L.o));
  L.mult.resize(size_t(L.o), 1);
  for (int64_t o = 0; o < L.o; ++o) {
    L.bias1[size_t(o)] = int32_t(uniform(rng, -5000, 5000));
    if (!L.wide_product && !L.float_requant) L.mult[size_t(o)] = int32_t(uniform(rng, -3000, 70000));
  }
}

// A random expansion and depthwise layer with a fused form on `cfg`.
ConvLayer randomFusedLayer(const hw::HwConfig& cfg, std::mt19937& rng) {
  for (;;) {
    ConvLayer D = test::randomDepthwiseLayer(rng, cfg.depthwise_taps, 2);
    D.n = 1;
    D.residual = false;
    D.residual_mult.clear();
    requantiseInGemm(D, rng);
    ConvLayer E = test::randomLayer(rng, false);
    E.name = "random_expansion";
    E.n = 1;
    E.o = D.c;
    E.kh = E.kw = E.sh = E.sw = 1;
    E.pad_top = E.pad_bottom = E.pad_left = E.pad_right = 0;
    E.pad_value = 0;
    E.h = E.oh = D.h;
    E.w = E.ow = D.w;
    E.weights.resize(size_t(E.o * E.c));
    for (auto& w : E.weights) w = int8_t(uniform(rng, -128, 127));
    requantiseInGemm(E, rng);
    if (!whyNoExpandedDepthwise(E, D, cfg).empty()) continue;
    D.expansion = std::make_shared<const ConvLayer>(E);
    return D;
  }
}

std::string describe(const ConvLayer& L) {
  const ConvLayer& E = *L.expansion;
  return std::to_string(E.c) + "->" + std::to_string(L.c) + " ch, " + std::to_string(L.h) + "x" + std::to_string(L.w) +
         ", kernel " + std::to_string(L.kh) + "x" + std::to_string(L.kw) + " stride " + std::to_string(L.sh) + "," +
         std::to_string(L.sw) + " pads " + std::to_string(L.pad_top) + "," + std::to_string(L.pad_left) + "," +
         std::to_string(L.pad_bottom) + "," + std::to_string(L.pad_right) + " value " + std::to_string(L.pad_value);
}

// The program of `plan` on `dev` against the two layers apart.
void expectExact(driver::Device& dev, const ConvLayer& F, const TilePlan& plan, const test::LayerData& x,
                 const std::string& what) {
  const hw::HwConfig& cfg = dev.config();
  const ConvProgram prog = generateConvProgram(F, plan, cfg, 0);
  EXPECT_NO_THROW(checkTokens(prog.program.insns, cfg, F.name)) << what;
  test::LayerData mid;
  mid.x = test::naiveQConv(*F.expansion, x);
  ConvLayer D = F;
  D.expansion.reset();
  const rt::Tensor want = test::naiveQConv(D, mid);
  const rt::Tensor got =
      test::runProgram(dev, prog, {{x.x, int64_t(cfg.block_in), prog.x_offset}}, {1, F.o, F.oh, F.ow});
  ASSERT_EQ(got.numElements(), want.numElements()) << what;
  for (int64_t i = 0; i < want.numElements(); ++i)
    if (got.data<int8_t>()[i] != want.data<int8_t>()[i]) {
      ADD_FAILURE() << what << ": element " << i << " of " << rt::shapeToString(want.shape()) << " is "
                    << int(got.data<int8_t>()[i]) << ", want " << int(want.data<int8_t>()[i]) << " (bands of "
                    << plan.rows << " rows, threads " << plan.threads << ")";
      return;
    }
}

TEST(ExpandedDepthwise, RandomPairsBitExactOnEveryDevice) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  ASSERT_TRUE(cfg.inp_writeback);
  std::mt19937 rng(9301);
  int runs = 0, several_bands = 0, skipped_rows = 0;
  for (const std::string& backend : driver::deviceBackends()) {
    auto dev = driver::createDevice(backend, cfg);
    for (int k = 0; k < (backend == "fsim" ? 48 : 10); ++k) {
      const ConvLayer F = randomFusedLayer(cfg, rng);
      const test::LayerData x = test::randomData(*F.expansion, rng);
      for (bool lh : {true, false}) {
        TilePlan plan = chooseExpandedTiling(F, cfg, lh);
        // Every other run a random band height that fits.
        if (k % 2) {
          TilePlan other = plan;
          other.rows = uniform(rng, 1, F.oh);
          if (estimateExpandedPlan(F, other, cfg).fits) plan = other;
        }
        const std::string what = "pair " + std::to_string(k) + " (" + describe(F) + ") on " + backend +
                                 ", latency hiding " + (lh ? "on" : "off");
        expectExact(*dev, F, plan, x, what);
        if (::testing::Test::HasFailure()) return;
        ++runs;
        several_bands += plan.rows < F.oh;
        skipped_rows += expandedGeometry(F, plan, cfg).skipped.size() > 1;
      }
    }
  }
  EXPECT_GT(runs, 100);
  EXPECT_GT(several_bands, 30);
  EXPECT_GT(skipped_rows, 30);  // kernel rows above or below the image
}

// zcu104 (1x32x32 on a 128-bit port, FREQ) ships STORE INP too: random pairs
// in its float requantisation on fsim and the HLS C simulation (its cycle
// model is built on demand, which the shipped-config tests do).
TEST(ExpandedDepthwise, RandomFloatRequantisedPairsOnZcu104) {
  const hw::HwConfig cfg = hw::loadConfig("zcu104");
  ASSERT_TRUE(cfg.inp_writeback && cfg.float_requant);
  std::mt19937 rng(9303);
  int runs = 0, float_pairs = 0;
  for (const std::string& backend : driver::deviceBackends()) {
    if (backend == "cycle") continue;
    auto dev = driver::createDevice(backend, cfg);
    for (int k = 0; k < (backend == "fsim" ? 24 : 6); ++k) {
      ConvLayer F = randomFusedLayer(cfg, rng);
      if (k % 2) {
        // onnxruntime's requantisation in both layers (FREQ in the GEMM and
        // the DWGEMM; its saturation is the clip, as in the QDQ models)
        ConvLayer E = *F.expansion;
        test::floatRequantLike(E, rng);
        test::floatRequantLike(F, rng);
        E.clip_lo = F.clip_lo = -128;
        E.clip_hi = F.clip_hi = 127;
        if (!whyNoExpandedDepthwise(E, F, cfg).empty()) continue;
        F.expansion = std::make_shared<const ConvLayer>(E);
        ++float_pairs;
      }
      const test::LayerData x = test::randomData(*F.expansion, rng);
      const std::string what = "pair " + std::to_string(k) + " (" + describe(F) + ") on " + backend + "/zcu104";
      expectExact(*dev, F, chooseExpandedTiling(F, cfg, true), x, what);
      if (::testing::Test::HasFailure()) return;
      ++runs;
    }
  }
  EXPECT_GT(runs, 20);
  EXPECT_GT(float_pairs, 5);
}

// A pair with a wide expansion whose weights WGT does not hold at once
// (MobileNetV2's last blocks on pynq: 160 -> 960 channels at 7x7) on
// pynq-sized arrays: 1 to 13 input blocks expanded into 25 to 63 blocks,
// 2 to 7 rows, one band (the ring needs it).
ConvLayer randomRingLayer(const hw::HwConfig& cfg, std::mt19937& rng) {
  for (;;) {
    ConvLayer F = randomFusedLayer(cfg, rng);
    ConvLayer E = *F.expansion;
    F.c = F.o = F.group = uniform(rng, 25 * 16, 63 * 16);
    F.kh = F.kw = 3;
    F.sh = F.sw = uniform(rng, 1, 2);
    F.pad_top = F.pad_left = F.pad_bottom = F.pad_right = 1;
    F.h = F.w = uniform(rng, 2, 7);
    F.oh = (F.h + 2 - 3) / F.sh + 1;
    F.ow = (F.w + 2 - 3) / F.sw + 1;
    F.weights.resize(size_t(F.o * 9));
    for (auto& w : F.weights) w = int8_t(uniform(rng, -128, 127));
    requantiseInGemm(F, rng);
    E.c = uniform(rng, 1, 13 * 16);  // (pynq's WGT holds 512 entries)
    E.o = F.c;
    E.h = E.oh = F.h;
    E.w = E.ow = F.w;
    E.weights.resize(size_t(E.o * E.c));
    for (auto& w : E.weights) w = int8_t(uniform(rng, -128, 127));
    requantiseInGemm(E, rng);
    const int64_t blocks = (F.c + 15) / 16, weights = blocks * ((E.c + 15) / 16 + 3);
    if (weights <= int64_t(cfg.depth(hw::Memory::Weight)) || !whyNoExpandedDepthwise(E, F, cfg).empty()) continue;
    F.expansion = std::make_shared<const ConvLayer>(E);
    return F;
  }
}

// pynq with `kib` KiB of WGT (fsim and the HLS C simulation take any config).
hw::HwConfig pynqWithWeightKib(int kib) {
  std::string json = *hw::builtinConfigText("pynq");
  const std::string key = "\"weight\": 128";
  const size_t at = json.find(key);
  if (at == std::string::npos) throw std::logic_error("pynq's WGT size is not 128 KiB");
  json.replace(at, key.size(), "\"weight\": " + std::to_string(kib));
  const std::string name = "\"name\": \"pynq\"";
  json.replace(json.find(name), name.size(), "\"name\": \"pynq-wgt" + std::to_string(kib) + "\"");
  return hw::parseConfig(json, "pynq with " + std::to_string(kib) + " KiB of WGT");
}

// Weights that exceed WGT stream through a ring of slots, each refilled
// when the unit before is done with it: bit-exact on every device with
// pynq's ring of 12 to 40 slots, and on fsim with 8 KiB of WGT, a ring of 2
// or 3 (the tightest, where each refill waits for the depthwise layer just
// before). A plan of several bands does not
// stream and says why.
TEST(ExpandedDepthwise, WeightsBeyondWgtStreamThroughARing) {
  std::mt19937 rng(9304);
  int runs = 0, tight = 0;
  for (const hw::HwConfig& cfg : {hw::loadConfig("pynq"), pynqWithWeightKib(8)}) {
    for (const std::string& backend : driver::deviceBackends()) {
      if (backend != "fsim" && cfg.name != "pynq") continue;  // built for the shipped configs
      auto dev = driver::createDevice(backend, cfg);
      for (int k = 0; k < (backend == "fsim" ? 8 : 2); ++k) {
        const ConvLayer F = randomRingLayer(cfg, rng);
        const test::LayerData x = test::randomData(*F.expansion, rng);
        for (bool lh : {true, false}) {
          const TilePlan plan = chooseExpandedTiling(F, cfg, lh);
          const ExpandedGeometry g = expandedGeometry(F, plan, cfg);
          ASSERT_EQ(g.bands, 1);
          ASSERT_LT(g.weight_slots, g.blocks) << describe(F);
          ASSERT_GE(g.weight_slots, 2);
          const std::string what = "pair " + std::to_string(k) + " (" + describe(F) + ") on " + backend + "/" +
                                   cfg.name + ", " + std::to_string(g.weight_slots) + " slots for " +
                                   std::to_string(g.blocks) + " blocks, latency hiding " + (lh ? "on" : "off");
          expectExact(*dev, F, plan, x, what);
          if (::testing::Test::HasFailure()) return;
          ++runs;
          tight += g.weight_slots <= 3;
        }
      }
    }
  }
  EXPECT_GE(runs, 40);
  EXPECT_GE(tight, 8);
  // Bands of fewer rows would reload every block's weights once per band.
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  ConvLayer F = randomRingLayer(cfg, rng);
  while (F.oh < 2) F = randomRingLayer(cfg, rng);
  TilePlan plan = chooseExpandedTiling(F, cfg, true);
  plan.rows = 1;
  EXPECT_NE(expandedGeometry(F, plan, cfg).why_not.find("only when one band covers the layer"), std::string::npos);
}

TEST(ExpandedDepthwise, PairsWithoutTheFormSayWhy) {
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  std::mt19937 rng(9302);
  const ConvLayer F = randomFusedLayer(pynq, rng);
  const ConvLayer& E = *F.expansion;
  ConvLayer D = F;
  D.expansion.reset();
  EXPECT_EQ(whyNoExpandedDepthwise(E, D, pynq), "");
  EXPECT_NE(whyNoExpandedDepthwise(E, D, hw::loadConfig("ultra96")).find("no STORE INP"), std::string::npos);
  ConvLayer strided = E;
  strided.sh = 2;
  EXPECT_NE(whyNoExpandedDepthwise(strided, D, pynq).find("not a 1x1"), std::string::npos);
  ConvLayer with_residual = D;
  with_residual.residual = true;
  EXPECT_NE(whyNoExpandedDepthwise(E, with_residual, pynq).find("residual"), std::string::npos);
  ConvLayer wider = D;
  wider.c = wider.o = wider.group = E.o + 1;
  EXPECT_NE(whyNoExpandedDepthwise(E, wider, pynq).find("does not read the expansion"), std::string::npos);
}

int fusedNodes(const ir::Graph& g) {
  int n = 0;
  for (const ir::Node* node : g.nodes()) n += node->qualifiedOp() == "vdla.QConv" && node->input(7) != nullptr;
  return n;
}

// The compile's fusion stage on MobileNetV2 (64x64): pynq takes pairs, each
// cheaper fused by the cost model; with the option off, or on ultra96
// (no STORE INP: its INP entries are twice its OUT entries), none. Every
// fused layer is offloaded (one decision fewer per pair).
TEST(ExpandedDepthwise, FusionTakesMobileNetPairsWhereTheConfigHasStoreInp) {
  auto compile = [](const std::string& config, bool fuse, CompileReport* report) {
    zoo::ZooOptions zo;
    zo.image_size = 64;
    auto g = zoo::buildModel("mobilenetv2", zo);
    CompileOptions o;
    o.target = "vdla";
    o.hw_config = config;
    o.accel.fuse_expansions = fuse;
    o.llvm_cpu_fallback = false;
    compileGraph(*g, o, report);
    return g;
  };
  CompileReport fused_report, apart_report, u96_report;
  const auto fused = compile("pynq", true, &fused_report);
  const auto apart = compile("pynq", false, &apart_report);
  const auto u96 = compile("ultra96", true, &u96_report);
  EXPECT_GT(fusedNodes(*fused), 3);
  EXPECT_EQ(fusedNodes(*apart), 0);
  EXPECT_EQ(fusedNodes(*u96), 0);
  EXPECT_EQ(fused->numNodes() + size_t(fusedNodes(*fused)), apart->numNodes());
  auto offloaded = [](const CompileReport& r) {
    size_t n = 0;
    for (const LayerDecision& d : r.layers) n += d.offloaded;
    return n;
  };
  EXPECT_EQ(offloaded(fused_report) + size_t(fusedNodes(*fused)), offloaded(apart_report));
}

}  // namespace
}  // namespace vdla::accel
