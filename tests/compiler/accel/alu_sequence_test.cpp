// The requantisation passes: with parameters from chooseRequantParams a plain
// layer needs MULSHR and CLIP instead of MUL, RSHR, MAX and MIN, and the
// fused sequence still equals vdla.QConv's wrapping definition on every
// device backend, including inputs that drive the accumulators to their
// bounds. Parameters whose products could leave int32 keep MUL and RSHR.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "accel_test_util.h"
#include "vdla/compiler/accel/alu_sequence.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/compiler/quant/requant.h"
#include "vdla/hw/config.h"

namespace vdla::accel {
namespace {

using hw::AluOp;

// pynq as the base ISA has it: the shape tests below are about the passes
// without the fused_requant extension (FusedRequantExtension covers it).
hw::HwConfig baseIsaPynq() {
  hw::HwConfig cfg = hw::loadConfig("pynq");
  cfg.fused_requant = false;
  cfg.float_requant = false;  // which needs fused_requant
  return cfg;
}

int countOp(const AluSequence& s, AluOp op) {
  return static_cast<int>(std::count_if(s.after.begin(), s.after.end(), [&](const AluPass& p) { return p.op == op; }));
}

// Replaces a random layer's requantisation with what the quantiser would
// choose for it: per-channel multipliers, a bias, a ReLU range.
void requantLikeTheQuantiser(ConvLayer& L, std::mt19937& rng, bool allow_wide = false, bool residual = false) {
  quant::RequantSpec spec;
  spec.allow_wide_product = allow_wide;
  std::uniform_real_distribution<double> mr(0.3, 1.5);
  const int64_t per = static_cast<int64_t>(L.weights.size()) / L.o;
  // With a residual: its scale hundreds of accumulator units, as in ResNets.
  std::uniform_real_distribution<double> m(1e-4, residual ? 8e-4 : 3e-3);
  std::uniform_int_distribution<int64_t> bias(-20000, 20000);
  for (int64_t o = 0; o < L.o; ++o) {
    spec.multiplier.push_back(m(rng));
    spec.bias.push_back(bias(rng));
    spec.acc_bound.push_back(quant::accumulatorBound(L.weights.data() + o * per, per));
    if (residual) spec.residual_multiplier.push_back(mr(rng));
  }
  spec.clip_lo = 0;
  const quant::RequantParams p = quant::chooseRequantParams(spec);
  L.shift1 = p.shift1;
  L.shift2 = p.shift2;
  L.wide_product = p.wide_product;
  L.bias1 = p.bias1;
  L.mult = p.mult;
  L.bias2 = p.bias2;
  L.clip_lo = p.clip_lo;
  L.clip_hi = p.clip_hi;
  L.residual = residual;
  L.residual_mult = p.residual_mult;
}

// Every input at the int8 extreme that maximises (or minimises) each
// accumulator of output channel 0.
test::LayerData extremeData(const ConvLayer& L, bool maximise) {
  test::LayerData d;
  d.x = rt::Tensor(rt::DType::I8, {L.n, L.c, L.h, L.w});
  const int64_t cg = L.c / L.group;
  for (int64_t n = 0; n < L.n; ++n)
    for (int64_t c = 0; c < L.c; ++c)
      for (int64_t i = 0; i < L.h * L.w; ++i) {
        // The weight sign of channel c in output channel 0's first tap (or +).
        const int8_t w = c < cg ? L.weights[static_cast<size_t>(c * L.kh * L.kw)] : 1;
        const bool high = (w >= 0) == maximise;
        d.x.data<int8_t>()[(n * L.c + c) * L.h * L.w + i] = high ? 127 : -128;
      }
  return d;
}

TEST(AluSequence, QuantiserParametersFuseIntoMulShrAndClip) {
  const hw::HwConfig cfg = baseIsaPynq();
  std::mt19937 rng(5);
  int fused = 0;
  for (int k = 0; k < 20; ++k) {
    ConvLayer L = test::randomLayer(rng, /*allow_residual=*/false);
    requantLikeTheQuantiser(L, rng);
    const AluSequence s = buildAluSequence(L, cfg);
    EXPECT_EQ(countOp(s, AluOp::Clip), 1) << "layer " << k;
    EXPECT_EQ(countOp(s, AluOp::Max) + countOp(s, AluOp::Min), 0) << "layer " << k;
    EXPECT_EQ(countOp(s, AluOp::MulShr) + countOp(s, AluOp::Mul), 1) << "layer " << k;
    if (countOp(s, AluOp::MulShr) == 1) {
      ++fused;
      EXPECT_LE(s.after.size(), 3u) << "layer " << k;  // [RSHR shift1], MULSHR, CLIP
    } else {
      // Only a bias2 between the multiply and the shift (shift1 = 0 form) prevents it.
      EXPECT_EQ(countOp(s, AluOp::Add), 1) << "layer " << k;
      EXPECT_EQ(L.shift1, 0) << "layer " << k;
    }
  }
  EXPECT_GE(fused, 5);
}

TEST(AluSequence, PossibleInt32OverflowKeepsMulAndRshr) {
  const hw::HwConfig cfg = baseIsaPynq();
  std::mt19937 rng(6);
  ConvLayer L = test::randomLayer(rng, false);
  std::fill(L.weights.begin(), L.weights.end(), int8_t{127});
  L.wide_product = false;
  L.shift1 = 0;
  L.shift2 = 20;
  L.bias1.assign(static_cast<size_t>(L.o), 0);
  L.bias2.assign(static_cast<size_t>(L.o), 0);
  // |acc| can reach 127 * 128 * taps; times 2^20 that leaves int32.
  L.mult.assign(static_cast<size_t>(L.o), 1 << 20);
  const AluSequence s = buildAluSequence(L, cfg);
  EXPECT_EQ(countOp(s, AluOp::MulShr), 0);
  EXPECT_EQ(countOp(s, AluOp::Mul), 1);
  EXPECT_EQ(countOp(s, AluOp::Rshr), 1);
}

TEST(AluSequence, ResidualLayersKeepTheUnfusedOrder) {
  const hw::HwConfig cfg = baseIsaPynq();
  std::mt19937 rng(7);
  ConvLayer L = test::randomLayer(rng, false);
  requantLikeTheQuantiser(L, rng);
  L.residual = true;
  L.residual_mult.assign(static_cast<size_t>(L.o), 3);
  const AluSequence s = buildAluSequence(L, cfg);
  EXPECT_EQ(countOp(s, AluOp::MulShr), 0);
  EXPECT_EQ(s.residualPasses(), 2);  // MUL of the residual, ADD
  EXPECT_EQ(countOp(s, AluOp::Clip), 1);
}

TEST(AluSequence, WideProductIsMovMulShrClip) {
  const hw::HwConfig cfg = baseIsaPynq();
  std::mt19937 rng(8);
  for (int k = 0; k < 10; ++k) {
    ConvLayer L = test::randomLayer(rng, false);
    requantLikeTheQuantiser(L, rng, /*allow_wide=*/true);
    ASSERT_TRUE(L.wide_product) << "layer " << k;
    const AluSequence s = buildAluSequence(L, cfg);
    ASSERT_EQ(s.after.size(), 2u) << "layer " << k;
    ASSERT_EQ(s.init.size(), 1u);
    EXPECT_EQ(s.init.front().op, AluOp::Mov);
    EXPECT_EQ(s.after[0].op, AluOp::MulShr);
    EXPECT_EQ(s.after[1].op, AluOp::Clip);
  }
}

TEST(AluSequence, WideResidualStartsFromTheResidualInTheAccumulators) {
  // acc = R (LOAD ACC8), *= residual_mult, += bias1; GEMM; MULSHR; CLIP: no
  // residual region and no pass after the GEMM reads one.
  const hw::HwConfig cfg = baseIsaPynq();
  std::mt19937 rng(9);
  ConvLayer L = test::randomLayer(rng, false);
  requantLikeTheQuantiser(L, rng, /*allow_wide=*/true);
  ASSERT_TRUE(L.wide_product);
  L.residual = true;
  L.residual_mult.assign(static_cast<size_t>(L.o), 700);
  L.bias1.assign(static_cast<size_t>(L.o), 0);
  L.bias1.back() = 5;  // per-channel: a parameter vector
  AluSequence s = buildAluSequence(L, cfg);
  EXPECT_TRUE(s.residual_in_acc);
  ASSERT_EQ(s.init.size(), 2u);
  EXPECT_EQ(s.init[0].op, AluOp::Mul);
  EXPECT_EQ(s.init[0].src, AluPass::Src::Imm);
  EXPECT_EQ(s.init[0].imm, 700);
  EXPECT_EQ(s.init[1].op, AluOp::Add);
  EXPECT_EQ(s.init[1].src, AluPass::Src::Param);
  ASSERT_EQ(s.after.size(), 2u);
  EXPECT_EQ(s.after[0].op, AluOp::MulShr);
  EXPECT_EQ(s.after[1].op, AluOp::Clip);
  EXPECT_EQ(s.residualPasses(), 0);
  EXPECT_FALSE(layerBlocks(L, cfg).residual_region);
  // Neutral parameters leave the accumulators as loaded.
  L.residual_mult.assign(static_cast<size_t>(L.o), 1);
  L.bias1.assign(static_cast<size_t>(L.o), 0);
  s = buildAluSequence(L, cfg);
  EXPECT_TRUE(s.init.empty());
  // The 32-bit form keeps its own residual region.
  L.wide_product = false;
  EXPECT_TRUE(layerBlocks(L, cfg).residual_region);
}

// With the extension every MULSHR followed by the output CLIP is one REQ whose
// operand is a parameter vector (also for a uniform multiplier, since the
// immediate holds the bounds) and whose immediate is the CLIP's.
TEST(AluSequence, FusedRequantExtensionMakesMulShrAndClipOneReq) {
  const hw::HwConfig fused = hw::loadConfig("pynq"), base = baseIsaPynq();
  ASSERT_TRUE(fused.fused_requant);
  std::mt19937 rng(10);
  int reqs = 0;
  for (int k = 0; k < 20; ++k) {
    ConvLayer L = test::randomLayer(rng, false);
    requantLikeTheQuantiser(L, rng, /*allow_wide=*/k % 2 == 1);
    if (k % 4 == 1) std::fill(L.mult.begin(), L.mult.end(), L.mult.front());  // uniform: an immediate MULSHR
    const AluSequence b = buildAluSequence(L, base), f = buildAluSequence(L, fused);
    if (countOp(b, AluOp::MulShr) == 0) {
      EXPECT_EQ(countOp(f, AluOp::Req), 0) << "layer " << k;
      continue;
    }
    ++reqs;
    ASSERT_EQ(f.after.size() + 1, b.after.size()) << "layer " << k;
    const AluPass& mulshr = b.after[b.after.size() - 2];
    const AluPass& clip = b.after.back();
    const AluPass& req = f.after.back();
    EXPECT_EQ(req.op, AluOp::Req);
    EXPECT_EQ(req.src, AluPass::Src::Param);
    EXPECT_EQ(req.imm, clip.imm);
    const std::vector<int32_t>& operand = f.params[static_cast<size_t>(req.param)];
    for (size_t o = 0; o < operand.size(); ++o)
      EXPECT_EQ(operand[o],
                mulshr.src == AluPass::Src::Imm ? mulshr.imm : b.params[static_cast<size_t>(mulshr.param)][o]);
  }
  EXPECT_GE(reqs, 10);
}

class FusedRequantOnDevice : public ::testing::TestWithParam<std::string> {};

TEST_P(FusedRequantOnDevice, MatchesTheDefinitionAtTheAccumulatorBounds) {
  // pynq runs MULSHR and CLIP as one REQ (fused_requant), tiny as two passes.
  const std::vector<std::string> configs =
      GetParam() == "fsim" ? std::vector<std::string>{"tiny", "pynq"} : std::vector<std::string>{"pynq"};
  for (const std::string& name : configs) {
    SCOPED_TRACE(name);
    const hw::HwConfig cfg = hw::loadConfig(name);
    auto dev = driver::createDevice(GetParam(), cfg);
    std::mt19937 rng(11);
    const int count = GetParam() == "fsim" ? 12 : 3;
    for (int k = 0, tried = 0; k < count; ++tried) {
      ASSERT_LT(tried, 20 * count) << "too few random layers fuse";
      ConvLayer L = test::randomLayer(rng, false);
      requantLikeTheQuantiser(L, rng, /*allow_wide=*/k % 2 == 1);  // both definitions
      const AluSequence seq = buildAluSequence(L, cfg);
      if (countOp(seq, AluOp::MulShr) + countOp(seq, AluOp::Req) != 1) continue;
      ASSERT_EQ(countOp(seq, AluOp::Req), cfg.fused_requant ? 1 : 0);
      ++k;
      for (int variant = 0; variant < 3; ++variant) {
        const test::LayerData d = variant == 0 ? test::randomData(L, rng) : extremeData(L, variant == 1);
        const ConvProgram prog = generateConvProgram(L, chooseTiling(L, cfg, true), cfg, 0);
        const rt::Tensor got = test::runOnDevice(*dev, L, prog, d);
        const rt::Tensor want = test::naiveQConv(L, d);
        for (int64_t i = 0; i < got.numElements(); ++i)
          ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i])
              << "layer " << k << " variant " << variant << " element " << i;
      }
    }
  }
}

TEST_P(FusedRequantOnDevice, ResidualInTheAccumulatorsMatchesTheDefinition) {
  // Residual layers as the quantiser makes them (the wide form) and with
  // arbitrary parameters, on both latency-hiding plans: on tiny with the bias
  // a pass of its own, on pynq inside the final REQ (bias_clear).
  for (const std::string name : {"tiny", "pynq"}) {
    SCOPED_TRACE(name);
    const hw::HwConfig cfg = hw::loadConfig(name);
    auto dev = driver::createDevice(GetParam(), cfg);
    std::mt19937 rng(13);
    const int count = GetParam() == "fsim" ? 12 : 3;
    int folded = 0;
    for (int k = 0; k < count; ++k) {
      ConvLayer L = test::randomLayer(rng, false);
      if (k % 2 == 0) {
        requantLikeTheQuantiser(L, rng, /*allow_wide=*/true, /*residual=*/true);
      } else {
        L.residual = true;
        L.wide_product = true;
        L.bias2.assign(static_cast<size_t>(L.o), 0);
        L.residual_mult.assign(static_cast<size_t>(L.o), -3);
        L.residual_mult.front() = 1000;
        L.shift2 = 10;
        L.mult.assign(static_cast<size_t>(L.o), 17);
      }
      ASSERT_TRUE(L.wide_product) << "layer " << k;
      const AluSequence seq = buildAluSequence(L, cfg);
      ASSERT_TRUE(seq.residual_in_acc);
      folded += seq.bias_clear;
      const test::LayerData d = test::randomData(L, rng);
      for (bool lh : {true, false}) {
        const ConvProgram prog = generateConvProgram(L, chooseTiling(L, cfg, lh), cfg, 0);
        const rt::Tensor got = test::runOnDevice(*dev, L, prog, d);
        const rt::Tensor want = test::naiveQConv(L, d);
        for (int64_t i = 0; i < got.numElements(); ++i)
          ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << "layer " << k << " element " << i;
      }
    }
    if (cfg.alu_bias_clear) {
      EXPECT_GE(folded, count / 2);
    } else {
      EXPECT_EQ(folded, 0);
    }
  }
}

// The wide residual form with alu_bias_clear: the bias ADD after the
// residual's scaling joins the final REQ; the scaling stays before the GEMM.
TEST(AluSequence, BiasClearFoldsTheResidualLayersBias) {
  const hw::HwConfig with = hw::loadConfig("pynq");
  ASSERT_TRUE(with.alu_bias_clear && with.fused_requant);
  hw::HwConfig without = with;
  without.alu_bias_clear = false;
  std::mt19937 rng(29);
  for (int k = 0; k < 10; ++k) {
    ConvLayer L = test::randomLayer(rng, false);
    requantLikeTheQuantiser(L, rng, /*allow_wide=*/true, /*residual=*/true);
    ASSERT_TRUE(L.wide_product);
    if (k % 3 == 1) std::fill(L.bias1.begin(), L.bias1.end(), 9);  // uniform: an ADD immediate unfolded
    const AluSequence a = buildAluSequence(L, without), b = buildAluSequence(L, with);
    ASSERT_TRUE(a.residual_in_acc && b.residual_in_acc);
    ASSERT_EQ(a.init.size(), 2u) << "layer " << k;  // the residual's scaling, the bias
    ASSERT_EQ(a.init[1].op, AluOp::Add);
    ASSERT_EQ(a.after.size(), 1u);
    ASSERT_EQ(a.after[0].op, AluOp::Req);
    EXPECT_TRUE(b.bias_clear);
    ASSERT_EQ(b.init.size(), 1u);
    EXPECT_EQ(b.init[0].op, a.init[0].op);
    EXPECT_EQ(b.init[0].imm, a.init[0].imm);
    ASSERT_EQ(b.after.size(), 1u);
    ASSERT_GE(b.after[0].bias_param, 0);
    const std::vector<int32_t>& bias = b.params[size_t(b.after[0].bias_param)];
    ASSERT_EQ(bias.size(), size_t(L.o));
    for (size_t o = 0; o < bias.size(); ++o)
      EXPECT_EQ(bias[o], a.init[1].src == AluPass::Src::Imm ? a.init[1].imm : a.params[size_t(a.init[1].param)][o]);
    // No zeroing pass: every tile loads R over the accumulators.
    EXPECT_TRUE(layerBlocks(L, with).bias_clear);
    EXPECT_FALSE(layerBlocks(L, with).zero_fill);
  }
}

TEST(AluSequence, FloatRequantIsMovAndOneFreq) {
  hw::HwConfig zcu104 = hw::loadConfig("zcu104");
  ASSERT_TRUE(zcu104.float_requant);
  zcu104.alu_bias_clear = false;  // BiasClearFoldsTheBiasIntoTheLastPass covers it
  std::mt19937 rng(21);
  ConvLayer L = test::randomLayer(rng, false);
  test::floatRequantLike(L, rng);
  L.clip_lo = -128;
  L.clip_hi = 127;
  AluSequence s = buildAluSequence(L, zcu104);
  ASSERT_EQ(s.init.size(), 1u);
  EXPECT_EQ(s.init[0].op, AluOp::Mov);
  ASSERT_EQ(s.after.size(), 1u);
  EXPECT_EQ(s.after[0].op, AluOp::FReq);
  EXPECT_EQ(s.after[0].src, AluPass::Src::Param);
  EXPECT_EQ(s.after[0].imm, L.y_zero_point);
  EXPECT_EQ(s.params[static_cast<size_t>(s.after[0].param)], L.mult);
  L.clip_lo = 0;  // a narrower range: a CLIP after the FREQ
  s = buildAluSequence(L, zcu104);
  ASSERT_EQ(s.after.size(), 2u);
  EXPECT_EQ(s.after[1].op, AluOp::Clip);
  EXPECT_THROW(buildAluSequence(L, baseIsaPynq()), std::logic_error);
}

// With alu_bias_clear the bias init disappears into a lone REQ or FREQ: the
// same passes otherwise, the bias a vector (also when uniform) beside the
// operand. Sequences with more than one final pass keep their init.
TEST(AluSequence, BiasClearFoldsTheBiasIntoTheLastPass) {
  std::mt19937 rng(23);
  int folded = 0, kept = 0;
  for (const char* name : {"pynq", "zcu104"}) {
    const hw::HwConfig with = hw::loadConfig(name);
    ASSERT_TRUE(with.alu_bias_clear) << name;
    hw::HwConfig without = with;
    without.alu_bias_clear = false;
    for (int k = 0; k < 20; ++k) {
      ConvLayer L = test::randomLayer(rng, false);
      if (std::string(name) == "zcu104") {
        test::floatRequantLike(L, rng);
        L.clip_lo = k % 3 == 0 ? 0 : -128;  // a narrower range adds a CLIP: no fold
        L.clip_hi = 127;
        if (k % 4 == 1) std::fill(L.bias1.begin(), L.bias1.end(), 7);  // uniform: a MOV immediate unfolded
      } else {
        requantLikeTheQuantiser(L, rng, /*allow_wide=*/k % 2 == 1);
      }
      const AluSequence a = buildAluSequence(L, without), b = buildAluSequence(L, with);
      ASSERT_EQ(a.after.size(), b.after.size());
      const bool lone = a.init.size() == 1 && a.init[0].op == AluOp::Mov && a.after.size() == 1 &&
                        (a.after[0].op == AluOp::Req || a.after[0].op == AluOp::FReq);
      if (!lone) {
        ++kept;
        EXPECT_FALSE(b.bias_clear) << name << " layer " << k;
        EXPECT_EQ(b.init.size(), a.init.size());
        EXPECT_EQ(b.after[0].bias_param, -1);
        continue;
      }
      ++folded;
      EXPECT_TRUE(b.bias_clear);
      EXPECT_TRUE(b.init.empty());
      EXPECT_EQ(b.after[0].op, a.after[0].op);
      EXPECT_EQ(b.after[0].imm, a.after[0].imm);
      EXPECT_EQ(b.params[size_t(b.after[0].param)], a.params[size_t(a.after[0].param)]);
      ASSERT_GE(b.after[0].bias_param, 0);
      const std::vector<int32_t>& bias = b.params[size_t(b.after[0].bias_param)];
      ASSERT_EQ(bias.size(), size_t(L.o));
      for (size_t o = 0; o < bias.size(); ++o)
        EXPECT_EQ(bias[o], a.init[0].src == AluPass::Src::Imm ? a.init[0].imm : a.params[size_t(a.init[0].param)][o]);
    }
  }
  EXPECT_GE(folded, 15);
  EXPECT_GE(kept, 5);
}

// FREQ on every backend (fsim, the RTL, the HLS C simulation) against the
// host's float arithmetic, with both latency-hiding plans.
TEST_P(FusedRequantOnDevice, FloatRequantMatchesBinary32Arithmetic) {
  const hw::HwConfig cfg = hw::loadConfig("zcu104");  // the shipped config with FREQ
  auto dev = driver::createDevice(GetParam(), cfg);
  std::mt19937 rng(17);
  const int count = GetParam() == "fsim" ? 12 : 3;
  int64_t inside = 0, total = 0;
  for (int k = 0; k < count; ++k) {
    ConvLayer L = test::randomLayer(rng, false);
    test::floatRequantLike(L, rng);
    L.clip_lo = k % 3 == 0 ? 0 : -128;
    const test::LayerData d = test::randomData(L, rng);
    const rt::Tensor want = test::naiveQConv(L, d);
    for (bool lh : {true, false}) {
      const ConvProgram prog = generateConvProgram(L, chooseTiling(L, cfg, lh), cfg, 0);
      const rt::Tensor got = test::runOnDevice(*dev, L, prog, d);
      for (int64_t i = 0; i < got.numElements(); ++i)
        ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << "layer " << k << " element " << i;
    }
    for (int64_t i = 0; i < want.numElements(); ++i, ++total)
      inside += want.data<int8_t>()[i] > L.clip_lo && want.data<int8_t>()[i] < 127;
  }
  EXPECT_GT(inside * 2, total) << "most outputs unsaturated: the roundings are what is compared";
}

INSTANTIATE_TEST_SUITE_P(Backends, FusedRequantOnDevice, ::testing::ValuesIn(driver::deviceBackends()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace vdla::accel
