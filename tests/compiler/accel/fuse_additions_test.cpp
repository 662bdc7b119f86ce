// Quantised additions fused into the convolutions that feed them
// (fuse_additions.h): the rewritten graph computes what the original did,
// bit for bit, on the reference kernels (the vdla.QConv post_add definition
// against QLinearAdd's float kernel); the cases that must not fuse stay
// apart; on a load-bound layer of the shipped zcu104 the cost model fuses.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>

#include "vdla/compiler/accel/fuse_additions.h"
#include "accel_test_util.h"
#include "vdla/compiler/accel/add_layer.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/hw/config.h"

namespace vdla::accel {
namespace {

using test::scalarF32;
using test::scalarI8;

rt::TensorType i8(const rt::Shape& s) { return rt::TensorType{rt::DType::I8, s, rt::Layout::RowMajor}; }

rt::Tensor randomI8(const rt::Shape& shape, std::mt19937& rng) {
  rt::Tensor t(rt::DType::I8, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<int8_t>()[i] = static_cast<int8_t>(rng() % 256);
  return t;
}

rt::Tensor vectorI32(int64_t n, std::mt19937& rng, int32_t lo, int32_t hi) {
  rt::Tensor t(rt::DType::I32, {n});
  for (int64_t i = 0; i < n; ++i) t.data<int32_t>()[i] = std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  return t;
}

struct Net {
  std::unique_ptr<ir::Graph> graph;
  ir::Node* conv = nullptr;
  ir::Node* add = nullptr;
};

// x -> vdla.QConv (1x1 or 3x3, c -> o) -> y; add(y, b) or add(b, y) -> out.
// With `y_read_twice` y is a graph output too.
Net convAndAdd(std::mt19937& rng, int64_t c, int64_t o, int64_t hw, int64_t k, bool conv_is_a, bool float_requant,
               bool y_read_twice = false) {
  Net n;
  n.graph = std::make_unique<ir::Graph>();
  ir::Graph& g = *n.graph;
  const rt::Shape ys = {1, o, hw, hw};
  ir::Value* x = g.addInput("x", i8({1, c, hw, hw}));
  ir::Value* b = g.addInput("b", i8(ys));
  rt::AttributeMap attrs;
  attrs.set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  attrs.set("shift1", int64_t{0});
  // Multipliers that bring typical sums into the int8 range (|acc| is about
  // 74^2 * sqrt(c * k * k)), so that the additions see unsaturated values.
  attrs.set("shift2", int64_t{float_requant ? 0 : (k == 1 ? 14 : 16)});
  attrs.set("clip_lo", int64_t{-128});
  attrs.set("clip_hi", int64_t{127});
  rt::Tensor mult = vectorI32(o, rng, 1, 16);
  if (float_requant) {
    attrs.set("float_requant", int64_t{1});
    attrs.set("y_zero_point", int64_t{-3});
    for (int64_t i = 0; i < o; ++i) {
      const float s = 0.0002f * float(1 + i % 7) / float(k);
      std::memcpy(&mult.data<int32_t>()[i], &s, sizeof s);
    }
  }
  n.conv = g.addNode(
      "QConv",
      {x, g.addConstant("w", randomI8({o, c, k, k}, rng)), g.addConstant("bias1", vectorI32(o, rng, -900, 900)),
       g.addConstant("mult", mult), g.addConstant("bias2", vectorI32(o, rng, 0, 0))},
      1, attrs, "conv", "vdla");
  n.conv->output(0)->setType(i8(ys));
  ir::Value* y = n.conv->output(0);
  ir::Value* a_in = conv_is_a ? y : b;
  ir::Value* b_in = conv_is_a ? b : y;
  // Scales drawn until the addition has an exact integer form (most have).
  for (int attempt = 0;; ++attempt) {
    if (attempt == 50) throw std::runtime_error("no addition with an exact integer form drawn");
    std::uniform_real_distribution<float> scale(0.01f, 0.05f), out_scale(0.05f, 0.15f);
    std::uniform_int_distribution<int> zp(-20, 20);
    if (n.add) n.graph->removeNode(n.add);
    n.add = g.addNode("QLinearAdd",
                      {a_in, g.addConstant(g.uniqueName("sa"), scalarF32(scale(rng))),
                       g.addConstant(g.uniqueName("za"), scalarI8(int8_t(zp(rng)))), b_in,
                       g.addConstant(g.uniqueName("sb"), scalarF32(scale(rng))),
                       g.addConstant(g.uniqueName("zb"), scalarI8(int8_t(zp(rng)))),
                       g.addConstant(g.uniqueName("sc"), scalarF32(out_scale(rng))),
                       g.addConstant(g.uniqueName("zc"), scalarI8(int8_t(zp(rng))))},
                      1, {}, "add", "com.microsoft");
    n.add->output(0)->setType(i8(ys));
    if (whyNotOffloadableAdd(*n.add).empty()) break;
  }
  g.addOutput(n.add->output(0));
  if (y_read_twice) g.addOutput(y);
  return n;
}

TEST(FuseAdditions, FusedConvolutionComputesTheAdditionBitForBit) {
  std::mt19937 rng(2024);
  const hw::HwConfig zcu104 = hw::loadConfig("zcu104");
  for (bool conv_is_a : {true, false})
    for (bool float_requant : {false, true})
      for (int64_t k : {1, 3}) {
        SCOPED_TRACE(std::string(conv_is_a ? "conv output as A" : "conv output as B") +
                     (float_requant ? ", float requantisation" : "") + ", kernel " + std::to_string(k));
        Net n = convAndAdd(rng, 24, 40, 9, k, conv_is_a, float_requant);
        const std::vector<rt::Tensor> inputs = {randomI8({1, 24, 9, 9}, rng), randomI8({1, 40, 9, 9}, rng)};
        const rt::Tensor want = runReference(*n.graph, inputs).at(0);
        const size_t slot = conv_is_a ? 0 : 3;
        ASSERT_EQ(fusibleConvolution(*n.graph, *n.add, slot), n.conv);
        const std::string out_name = n.add->output(0)->name();
        ir::Node* fused = fuseAdditionIntoConvolution(*n.graph, n.add, slot);
        n.graph->topologicalSort();
        ir::verifyGraphOrThrow(*n.graph);
        ASSERT_EQ(n.graph->numNodes(), 1u);
        EXPECT_EQ(fused->attrs().getInt("post_add", 0), 1);
        EXPECT_EQ(n.graph->outputs().at(0)->name(), out_name);
        const rt::Tensor got = runReference(*n.graph, inputs).at(0);
        ASSERT_EQ(got.byteSize(), want.byteSize());
        int64_t unsaturated = 0;
        for (int64_t i = 0; i < want.numElements(); ++i) {
          ASSERT_EQ(got.data<int8_t>()[i], want.data<int8_t>()[i]) << "element " << i;
          unsaturated += want.data<int8_t>()[i] > -128 && want.data<int8_t>()[i] < 127;
        }
        EXPECT_GT(unsaturated, want.numElements() / 4) << "the additions must exercise the arithmetic";
      }
}

TEST(FuseAdditions, KeepsApartWhatCannotFuse) {
  std::mt19937 rng(7);
  const hw::HwConfig zcu104 = hw::loadConfig("zcu104"), pynq = hw::loadConfig("pynq");
  // The convolution's output is read elsewhere too (here: a graph output).
  Net shared = convAndAdd(rng, 16, 32, 8, 1, true, false, true);
  EXPECT_EQ(fusibleConvolution(*shared.graph, *shared.add, 0), nullptr);
  // The operand that is not a convolution's output.
  Net other = convAndAdd(rng, 16, 32, 8, 1, true, false);
  EXPECT_EQ(fusibleConvolution(*other.graph, *other.add, 3), nullptr);
  // A float requantisation on a config without FREQ.
  Net freq = convAndAdd(rng, 16, 32, 8, 1, true, true);
  EXPECT_EQ(fusibleConvolution(*freq.graph, *freq.add, 0), freq.conv);
  EXPECT_TRUE(fuseAdditionsIntoConvolutions(*freq.graph, pynq, {}).empty());
  // Additions kept on the CPU are not fused either, nor with fusion off.
  AccelOptions no_adds, no_fusion;
  no_adds.offload_adds = false;
  no_fusion.fuse_additions = false;
  Net load_bound = convAndAdd(rng, 144, 24, 56, 1, false, true);
  EXPECT_TRUE(fuseAdditionsIntoConvolutions(*load_bound.graph, zcu104, no_adds).empty());
  EXPECT_TRUE(fuseAdditionsIntoConvolutions(*load_bound.graph, zcu104, no_fusion).empty());
  EXPECT_EQ(load_bound.graph->numNodes(), 2u);
  EXPECT_EQ(fuseAdditionsIntoConvolutions(*load_bound.graph, zcu104, {}).size(), 1u);
}

// MobileNetV2's first residual block on zcu104: its 144 -> 24 projection
// waits for its inputs (the port), so the addition's passes fit beside its
// GEMMs and the cost model fuses; on pynq the array is the bound and the
// passes would lengthen the layer, so it does not.
TEST(FuseAdditions, CostModelFusesWhereThePassesHideBehindTheLoads) {
  for (const char* config : {"zcu104", "pynq"}) {
    std::mt19937 rng(11);
    Net n = convAndAdd(rng, 144, 24, 56, 1, false, std::string(config) == "zcu104");
    const std::vector<AdditionFusion> f = fuseAdditionsIntoConvolutions(*n.graph, hw::loadConfig(config), {});
    if (std::string(config) == "zcu104") {
      ASSERT_EQ(f.size(), 1u);
      EXPECT_LT(f[0].fused_cycles, 1.02 * f[0].separate_cycles);
      EXPECT_EQ(n.graph->numNodes(), 1u);
    } else {
      EXPECT_TRUE(f.empty());
      EXPECT_EQ(n.graph->numNodes(), 2u);
    }
  }
}

}  // namespace
}  // namespace vdla::accel
