// The fused Conv steps of the CPU back end: a 1x1 expansion Conv with the
// depthwise Conv after it (emit_expand_depthwise*.cpp) and a depthwise Conv
// with the 1x1 Conv after it (emit_depthwise_pointwise.cpp). Random shapes
// against the reference executor, that the lowering fuses exactly the pairs
// it may (all 17 of MobileNetV2, none of ResNet-18, none where the middle
// tensor has another reader or the layout does not allow it), and that the
// ARM targets compile them.
#include <algorithm>

#include "llvm_test_util.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/zoo/model_zoo.h"

namespace vdla::cpu::test {
namespace {

struct PairCase {
  rt::Shape x;             // input of the expansion, NCHW
  int64_t m;               // expanded channels
  int64_t k, stride, pad;  // depthwise window (square)
  std::string expand_act, dw_act;
  bool expand_bias, dw_bias;
};

void setActivation(rt::AttributeMap& a, const std::string& act) {
  if (act.empty()) return;
  a.set("activation", act);
  if (act == "Clip") {
    a.set("activation_min", 0.0);
    a.set("activation_max", 6.0);
  }
}

// expand (1x1) -> depthwise; when `extra_reader`, the expanded tensor is
// also a graph output (so the pair must not be fused).
std::unique_ptr<ir::Graph> pairGraph(const PairCase& c, std::mt19937& rng, bool extra_reader = false,
                                     int64_t expand_stride = 1) {
  auto g = std::make_unique<ir::Graph>();
  g->name = "expand_depthwise";
  ir::Value* x = g->addInput("x", {rt::DType::F32, c.x});
  std::vector<ir::Value*> ins = {x, g->addConstant("we", randomTensor({c.m, c.x[1], 1, 1}, rng))};
  if (c.expand_bias) ins.push_back(g->addConstant("be", randomTensor({c.m}, rng)));
  rt::AttributeMap ea;
  ea.set("strides", std::vector<int64_t>{expand_stride, expand_stride});
  setActivation(ea, c.expand_act);
  ir::Value* mid = g->addNode("Conv", ins, 1, ea, "expand")->output();
  std::vector<ir::Value*> dins = {mid, g->addConstant("wd", randomTensor({c.m, 1, c.k, c.k}, rng))};
  if (c.dw_bias) dins.push_back(g->addConstant("bd", randomTensor({c.m}, rng)));
  rt::AttributeMap da;
  da.set("group", c.m);
  da.set("strides", std::vector<int64_t>{c.stride, c.stride});
  da.set("pads", std::vector<int64_t>(4, c.pad));
  setActivation(da, c.dw_act);
  g->addOutput(g->addNode("Conv", dins, 1, da, "depthwise")->output());
  if (extra_reader) g->addOutput(mid);
  passes::inferShapes(*g);
  return g;
}

int64_t countOp(const rt::Artifact& a, const std::string& op) {
  return std::count_if(a.steps.begin(), a.steps.end(),
                       [&](const rt::ArtifactStep& s) { return s.attrs.getString("op", "") == op; });
}

// Forces one variant of the fused step (and of every other Conv) while alive.
struct ForcedKernel {
  explicit ForcedKernel(const char* kernel) { setenv("VDLA_LLVM_CONV_KERNEL", kernel, 1); }
  ~ForcedKernel() { unsetenv("VDLA_LLVM_CONV_KERNEL"); }
};

// Whether the step vectorised along channels (only it packs the depthwise taps).
bool byChannels(const rt::Artifact& a) {
  return std::any_of(a.tensors.begin(), a.tensors.end(), [](const rt::ArtifactTensor& t) {
    return t.name.find("packed_depthwise_weights") != std::string::npos;
  });
}

// Returns whether the step ran vectorised along channels.
bool checkPair(const PairCase& c, uint32_t seed, const std::string& what) {
  std::mt19937 rng(seed);
  std::unique_ptr<ir::Graph> g = pairGraph(c, rng);
  const rt::Tensor x = randomTensor(c.x, rng);
  // The fusion must fire, or the test would compare the unfused steps.
  const rt::Artifact a = compileJit(*g).artifact;
  EXPECT_EQ(countOp(a, "Conv+DepthwiseConv"), 1) << what;
  expectMatchesReference(*g, {x}, what);
  return byChannels(a);
}

// Random shapes through the variant `kernel` forces ("auto": the choice of
// the cost estimate).
void randomPairs(const char* kernel, uint32_t seed) {
  ForcedKernel force(kernel);
  const bool channels = std::string(kernel) == "channels";
  int64_t by_channels = 0;
  std::mt19937 rng(seed);
  auto pick = [&](std::vector<int64_t> v) { return v[rng() % v.size()]; };
  const std::vector<std::string> acts = {"", "Relu", "Clip"};
  for (int i = 0; i < 14; ++i) {
    PairCase c;
    // Channel tiles need rows of up to 16 outputs that some divisor from 4
    // to 14 splits, and 3x3 or 1x1 windows (their taps stay in registers).
    const int64_t h = pick({1, 3, 5, 7, 8, 12, 14, 17, 28});
    const int64_t w = channels ? pick({4, 7, 9, 14, 16}) : pick({1, 4, 7, 9, 14, 16, 33});
    c.x = {i % 5 == 4 ? 2 : 1, pick({1, 3, 16, 24}), h, w};
    c.m = pick({5, 8, 12, 24, 37});
    c.k = channels ? pick({1, 3, 3}) : pick({1, 3, 3, 5});
    c.stride = pick({1, 2});
    c.pad = std::min<int64_t>(pick({0, 1, 1, 2}), c.k / 2 + 1);
    if ((h + 2 * c.pad) < c.k || (w + 2 * c.pad) < c.k) c.pad = c.k;  // keep the window inside
    if (channels && (w + 2 * c.pad - c.k) / c.stride + 1 > 16) c.stride = 2;
    c.expand_act = acts[rng() % 3];
    c.dw_act = acts[rng() % 3];
    c.expand_bias = rng() % 4 != 0;
    c.dw_bias = rng() % 4 != 0;
    const std::string what = std::string(kernel) + " case " + std::to_string(i) + ": x " + rt::shapeToString(c.x) +
                             " m " + std::to_string(c.m) + " k " + std::to_string(c.k) + " stride " +
                             std::to_string(c.stride) + " pad " + std::to_string(c.pad) + " act '" + c.expand_act +
                             "'/'" + c.dw_act + "'";
    by_channels += checkPair(c, seed + i, what);
  }
  // Every channel-friendly case took that variant, no forced position case did.
  EXPECT_EQ(by_channels, channels ? 14 : 0) << kernel;
}

TEST(LlvmFusedConvs, ExpandDepthwiseRandomShapesPositionTiles) { randomPairs("positions", 1000); }
TEST(LlvmFusedConvs, ExpandDepthwiseRandomShapesChannelTiles) { randomPairs("channels", 2000); }

TEST(LlvmFusedConvs, ExpandDepthwiseMobileNetShapes) {
  ForcedKernel force("auto");
  // Both depthwise forms: stride 1 (phase-plane copy) and stride 2 with
  // one pixel of padding (rows read in place), with MobileNetV2's ReLU6,
  // planes that are and are not a multiple of the tile width.
  // The cost estimate takes position tiles on 28x28, channel tiles on 14x14 and 7x7.
  EXPECT_FALSE(checkPair({{1, 16, 28, 28}, 96, 3, 2, 1, "Clip", "Clip", true, true}, 1, "stride 2 28x28"));
  EXPECT_TRUE(checkPair({{1, 24, 14, 14}, 144, 3, 1, 1, "Clip", "Clip", true, true}, 2, "stride 1 14x14"));
  EXPECT_TRUE(checkPair({{1, 96, 14, 14}, 576, 3, 2, 1, "Clip", "Clip", true, true}, 5, "stride 2 14x14"));
  EXPECT_TRUE(checkPair({{1, 160, 7, 7}, 960, 3, 1, 1, "Clip", "Clip", true, true}, 3, "stride 1 7x7"));
  checkPair({{1, 16, 15, 13}, 40, 3, 2, 1, "Relu", "", false, true}, 4, "stride 2 odd 15x13");
}

TEST(LlvmFusedConvs, ExpandDepthwiseNotFusedWhereItMayNot) {
  std::mt19937 rng(7);
  const PairCase c{{1, 8, 9, 9}, 16, 3, 1, 1, "Relu", "Relu", true, true};
  // The expanded tensor is also a graph output: two steps, both outputs right.
  {
    std::unique_ptr<ir::Graph> g = pairGraph(c, rng, true);
    EXPECT_EQ(countOp(compileJit(*g).artifact, "Conv+DepthwiseConv"), 0);
    expectMatchesReference(*g, {randomTensor(c.x, rng)}, "expanded tensor is an output");
  }
  // A strided 1x1 layer does not read its input in place.
  {
    std::unique_ptr<ir::Graph> g = pairGraph(c, rng, false, 2);
    EXPECT_EQ(countOp(compileJit(*g).artifact, "Conv+DepthwiseConv"), 0);
    expectMatchesReference(*g, {randomTensor(c.x, rng)}, "strided expansion");
  }
  // The option turns it off.
  {
    std::unique_ptr<ir::Graph> g = pairGraph(c, rng);
    CpuCompileOptions off;
    off.fuse_expand_depthwise = false;
    EXPECT_EQ(countOp(compileJit(*g, off).artifact, "Conv+DepthwiseConv"), 0);
    expectMatchesReference(*g, {randomTensor(c.x, rng)}, "fusion off", off);
  }
}

std::vector<std::string> stepOps(const rt::Artifact& a) {
  std::vector<std::string> ops;
  for (const rt::ArtifactStep& s : a.steps) ops.push_back(s.attrs.getString("op", ""));
  return ops;
}

TEST(LlvmFusedConvs, FireOnMobileNetV2AndNotOnResNet18) {
  zoo::ZooOptions zo;
  zo.image_size = 32;
  CpuCompileOptions off;
  off.fuse_expand_depthwise = false;
  off.fuse_depthwise_pointwise = false;

  std::unique_ptr<ir::Graph> mbv2 = zoo::buildModel("mobilenetv2", zo);
  runStandardPipeline(*mbv2, PipelineOptions{});
  const rt::Artifact fused = compileJit(*mbv2).artifact;
  const rt::Artifact unfused = compileJit(*mbv2, off).artifact;
  // Every inverted residual block with an expansion (all but the first),
  // and the first block's depthwise and 1x1 layers.
  EXPECT_EQ(countOp(fused, "Conv+DepthwiseConv"), 16);
  EXPECT_EQ(countOp(fused, "DepthwiseConv+Conv"), 1);
  EXPECT_EQ(unfused.steps.size(), fused.steps.size() + 17);
  // The residual Adds stay fused into the 1x1 layers before them.
  EXPECT_EQ(countOp(fused, "Conv+Add"), countOp(unfused, "Conv+Add"));

  std::unique_ptr<ir::Graph> r18 = zoo::buildModel("resnet18", zo);
  runStandardPipeline(*r18, PipelineOptions{});
  EXPECT_EQ(stepOps(compileJit(*r18).artifact), stepOps(compileJit(*r18, off).artifact));
}

TEST(LlvmFusedConvs, ExpandDepthwiseArmTargetsCompile) {
  std::mt19937 rng(11);
  for (const char* arch : {"armv7", "aarch64"}) {
    // Tiles of 8 positions (armv7) and 16 (aarch64) over a 5x7 plane, both
    // depthwise forms; aarch64 also vectorised along channels (armv7 has
    // too few registers for it).
    for (const char* kernel : {"positions", "channels"})
      for (int64_t stride : {1, 2}) {
        ForcedKernel force(kernel);
        std::unique_ptr<ir::Graph> g = pairGraph({{1, 6, 5, 7}, 12, 3, stride, 1, "Clip", "Relu", true, true}, rng);
        const rt::Artifact a = compileShared(*g, CpuTarget::named(arch));
        EXPECT_EQ(countOp(a, "Conv+DepthwiseConv"), 1) << arch;
        EXPECT_FALSE(a.blobs.at("llvm.so").empty()) << arch;
      }
  }
}

// depthwise -> 1x1; with `residual`, an Add of a graph input after the 1x1.
std::unique_ptr<ir::Graph> depthwisePointwiseGraph(const rt::Shape& x_shape, int64_t k, int64_t stride, int64_t pad,
                                                   int64_t m, const std::string& dw_act, const std::string& pw_act,
                                                   std::mt19937& rng, bool residual = false) {
  auto g = std::make_unique<ir::Graph>();
  g->name = "depthwise_pointwise";
  const int64_t c = x_shape[1];
  ir::Value* x = g->addInput("x", {rt::DType::F32, x_shape});
  rt::AttributeMap da;
  da.set("group", c);
  da.set("strides", std::vector<int64_t>{stride, stride});
  da.set("pads", std::vector<int64_t>(4, pad));
  setActivation(da, dw_act);
  ir::Value* mid = g->addNode("Conv",
                              {x, g->addConstant("wd", randomTensor({c, 1, k, k}, rng)),
                               g->addConstant("bd", randomTensor({c}, rng))},
                              1, da, "depthwise")
                       ->output();
  rt::AttributeMap pa;
  setActivation(pa, pw_act);
  std::vector<ir::Value*> ins = {mid, g->addConstant("wp", randomTensor({m, c, 1, 1}, rng))};
  if (rng() % 3 != 0) ins.push_back(g->addConstant("bp", randomTensor({m}, rng)));
  ir::Value* y = g->addNode("Conv", ins, 1, pa, "pointwise")->output();
  if (residual) {
    passes::inferShapes(*g);
    y = g->addNode("Add", {y, g->addInput("r", y->type())}, 1, {}, "add")->output();
  }
  g->addOutput(y);
  passes::inferShapes(*g);
  return g;
}

TEST(LlvmFusedConvs, DepthwisePointwiseRandomShapes) {
  // Bands of rows (several, the last one shorter, or the whole plane),
  // positions per band that are and are not a whole number of tiles, both
  // depthwise forms that read rows in place, 1x1 layers with output
  // channels not a multiple of the blocks, batch 2.
  std::mt19937 rng(4242);
  auto pick = [&](std::vector<int64_t> v) { return v[rng() % v.size()]; };
  const std::vector<std::string> acts = {"", "Relu", "Clip"};
  for (int i = 0; i < 12; ++i) {
    const int64_t c = pick({1, 3, 8, 32, 40}), h = pick({1, 4, 9, 23, 56}), w = pick({3, 7, 16, 31, 112});
    const bool stride2 = i % 3 == 2;
    const int64_t k = stride2 ? 3 : pick({1, 3, 5}), pad = stride2 ? 1 : pick({0, 1, 2});
    if (!stride2 && (h + 2 * pad < k || w + 2 * pad < k)) continue;
    const rt::Shape xs = {i % 4 == 3 ? 2 : 1, c, h, w};
    const int64_t m = pick({5, 16, 24});
    std::unique_ptr<ir::Graph> g =
        depthwisePointwiseGraph(xs, k, stride2 ? 2 : 1, pad, m, acts[rng() % 3], acts[rng() % 3], rng);
    const std::string what = "depthwise+1x1 case " + std::to_string(i) + ": x " + rt::shapeToString(xs) + " k " +
                             std::to_string(k) + (stride2 ? " stride 2" : " stride 1") + " pad " + std::to_string(pad) +
                             " m " + std::to_string(m);
    EXPECT_EQ(countOp(compileJit(*g).artifact, "DepthwiseConv+Conv"), 1) << what;
    expectMatchesReference(*g, {randomTensor(xs, rng)}, what);
  }
}

TEST(LlvmFusedConvs, DepthwisePointwiseBands) {
  // MobileNetV2's first block and cuts of it: bands of 2 rows with a
  // shorter last band, stride 2 with a shorter last band, one-row bands.
  std::mt19937 rng(4343);
  struct Case {
    rt::Shape x;
    int64_t stride, m;
  };
  for (const Case& c : std::vector<Case>{
           {{1, 32, 9, 112}, 1, 16}, {{1, 32, 25, 112}, 2, 24}, {{1, 40, 3, 112}, 1, 9}, {{1, 32, 112, 112}, 1, 16}}) {
    std::unique_ptr<ir::Graph> g = depthwisePointwiseGraph(c.x, 3, c.stride, 1, c.m, "Clip", "", rng);
    const std::string what = "bands " + rt::shapeToString(c.x) + " stride " + std::to_string(c.stride);
    EXPECT_EQ(countOp(compileJit(*g).artifact, "DepthwiseConv+Conv"), 1) << what;
    expectMatchesReference(*g, {randomTensor(c.x, rng)}, what);
  }
}

TEST(LlvmFusedConvs, DepthwisePointwiseNotFusedWhereItMayNot) {
  std::mt19937 rng(99);
  const rt::Shape xs = {1, 8, 12, 12};
  // A strided depthwise layer that copies its planes (stride 2 without
  // padding) is not cut into bands.
  {
    std::unique_ptr<ir::Graph> g = depthwisePointwiseGraph(xs, 3, 2, 0, 16, "Relu", "", rng);
    EXPECT_EQ(countOp(compileJit(*g).artifact, "DepthwiseConv+Conv"), 0);
    expectMatchesReference(*g, {randomTensor(xs, rng)}, "copying depthwise layer");
  }
  // A 1x1 layer with a residual Add keeps that fusion instead.
  {
    std::unique_ptr<ir::Graph> g = depthwisePointwiseGraph(xs, 3, 1, 1, 8, "Relu", "", rng, true);
    const rt::Artifact a = compileJit(*g).artifact;
    EXPECT_EQ(countOp(a, "DepthwiseConv+Conv"), 0);
    EXPECT_EQ(countOp(a, "Conv+Add"), 1);
    expectMatchesReference(*g, {randomTensor(xs, rng), randomTensor(xs, rng)}, "residual 1x1 layer");
  }
  // The option turns it off.
  {
    std::unique_ptr<ir::Graph> g = depthwisePointwiseGraph(xs, 3, 1, 1, 16, "Relu", "Clip", rng);
    CpuCompileOptions off;
    off.fuse_depthwise_pointwise = false;
    EXPECT_EQ(countOp(compileJit(*g, off).artifact, "DepthwiseConv+Conv"), 0);
  }
}

TEST(LlvmFusedConvs, DepthwisePointwiseArmTargetsCompile) {
  std::mt19937 rng(12);
  for (const char* arch : {"armv7", "aarch64"})
    for (int64_t stride : {1, 2}) {
      std::unique_ptr<ir::Graph> g = depthwisePointwiseGraph({1, 6, 9, 13}, 3, stride, 1, 10, "Clip", "", rng);
      const rt::Artifact a = compileShared(*g, CpuTarget::named(arch));
      EXPECT_EQ(countOp(a, "DepthwiseConv+Conv"), 1) << arch;
      EXPECT_FALSE(a.blobs.at("llvm.so").empty()) << arch;
    }
}

}  // namespace
}  // namespace vdla::cpu::test
