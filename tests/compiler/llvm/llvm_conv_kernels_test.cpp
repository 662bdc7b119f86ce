// The fp32 convolution kernels of the CPU back end, each forced in turn
// (VDLA_LLVM_CONV_KERNEL) on random shapes against the reference executor:
// the position-vectorised GEMM over phase planes, the channel-vectorised
// one, Winograd F(2x2, 3x3) and the depthwise kernel; shapes cover strides 1-3 (phase planes),
// padding and dilation (dropped phase-space columns), 1x1 layers without
// padding (tiles stored with plain vector stores), groups, batch 2, output
// channels and positions that cut through tiles, and fused epilogues.
#include <cstdlib>

#include "llvm_conv_case.h"

namespace vdla::cpu::test {
namespace {

// Sets VDLA_LLVM_CONV_KERNEL for the lifetime of the object.
class ForcedKernel {
 public:
  explicit ForcedKernel(const char* kernel) { setenv("VDLA_LLVM_CONV_KERNEL", kernel, 1); }
  ~ForcedKernel() { unsetenv("VDLA_LLVM_CONV_KERNEL"); }
};

ConvCase randomDenseCase(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ConvCase c;
  c.group = pick(0, 3) == 0 ? pick(2, 3) : 1;
  const bool pointwise = pick(0, 2) == 0;
  c.k_h = pointwise ? 1 : pick(1, 3);
  c.k_w = pointwise ? 1 : pick(1, 4);
  c.stride = pointwise ? pick(1, 2) : pick(1, 3);
  c.pad = pointwise ? 0 : pick(0, 2);
  c.dilation = pointwise ? 1 : pick(1, 2);
  const int64_t min_size = (std::max(c.k_h, c.k_w) - 1) * c.dilation + 1;
  c.x = {pick(1, 2), c.group * pick(1, 20), min_size + pick(0, 16), min_size + pick(0, 16)};
  c.m = c.group * pick(1, 40);
  c.bias = pick(0, 1) == 1;
  c.activation = pick(0, 2) == 0 ? "" : pick(0, 1) ? "Relu" : "Clip";
  c.residual = pick(0, 2) == 0;
  return c;
}

TEST(LlvmConvKernels, PositionTiledRandomShapes) {
  ForcedKernel kernel("positions");
  std::mt19937 rng(21);
  for (int trial = 0; trial < 16; ++trial)
    runConv(randomDenseCase(rng), "positions conv " + std::to_string(trial), 3000 + trial);
}

TEST(LlvmConvKernels, ChannelTiledRandomShapes) {
  // The kernel tiles output rows by a divisor of out_w of at least half the
  // accumulator rows (the position kernel runs the others): widen the input
  // until out_w is a multiple of 4 to 7.
  ForcedKernel kernel("channels");
  std::mt19937 rng(22);
  for (int trial = 0; trial < 16; ++trial) {
    ConvCase c = randomDenseCase(rng);
    const int64_t multiple = std::uniform_int_distribution<int>(4, 7)(rng);
    auto out_w = [&] { return (c.x[3] + 2 * c.pad - c.dilation * (c.k_w - 1) - 1) / c.stride + 1; };
    while (out_w() % multiple != 0) ++c.x[3];
    runConv(c, "channels conv " + std::to_string(trial), 4000 + trial);
  }
}

TEST(LlvmConvKernels, ChannelTiledSplitsLongChannelLoops) {
  // 256 input channels x 9 taps: the channel loop runs in blocks with the
  // partial sums kept between them; 7x7 and 14x14 planes as in ResNet.
  ForcedKernel kernel("channels");
  runConv({{1, 256, 7, 7}, 40, 3, 3, 1, 1, 1, 1, true, "Relu", true}, "channels 7x7 blocked", 51);
  runConv({{1, 96, 14, 14}, 64, 3, 3, 2, 1, 1, 1, true, "", false}, "channels stride 2 blocked", 52);
  runConv({{1, 320, 7, 7}, 70, 1, 1, 1, 0, 1, 1, false, "Clip", false}, "channels pointwise blocked", 53);
  // Narrowing 1x1 layers: on two threads each sums half of the input
  // channels and a pass adds the halves, the bias, the activation and the
  // residual (planes of 196 positions: a masked last vector; batch 2).
  runConv({{2, 384, 14, 14}, 64, 1, 1, 1, 0, 1, 1, true, "Relu", true}, "channels pointwise input halves", 54);
  runConv({{1, 576, 7, 7}, 96, 1, 1, 1, 0, 1, 1, true, "", true}, "channels pointwise input halves 7x7", 55);
}

TEST(LlvmConvKernels, ChannelTiledSkipsPaddingTaps) {
  // Tiles whose taps read padding run a K loop without them, one copy per
  // class of tiles (by output row and column tile); beyond 9 classes a
  // dimension falls back to one class that reads every tap. Padding wider
  // than the kernel leaves border tiles with no tap at all.
  ForcedKernel kernel("channels");
  runConv({{1, 24, 28, 28}, 40, 3, 3, 1, 1, 1, 1, true, "Relu", true}, "channels 3x3 on 28x28, 9 classes", 71);
  runConv({{1, 256, 7, 7}, 33, 5, 5, 1, 2, 1, 1, true, "", false}, "channels 5x5 on 7x7, K blocks", 72);
  runConv({{1, 16, 28, 28}, 20, 5, 5, 1, 2, 1, 1, false, "Clip", true}, "channels 5x5 on 28x28, columns one class", 73);
  runConv({{2, 12, 14, 14}, 17, 11, 3, 1, 5, 1, 1, true, "", true}, "channels 11x3 padding 5, one class", 74);
  runConv({{1, 8, 5, 5}, 16, 1, 1, 1, 1, 1, 1, true, "Relu", false}, "channels 1x1 padding 1, border without taps", 75);
  runConv({{1, 20, 13, 13}, 24, 3, 3, 2, 1, 2, 1, true, "", false}, "channels dilated, stride 2", 76);
}

TEST(LlvmConvKernels, WinogradRandomShapes) {
  // 3x3 stride 1: odd and even output sizes (tiles cut by the output),
  // padding 0-2, batch 2, output channels cutting through MR blocks.
  ForcedKernel kernel("winograd");
  std::mt19937 rng(25);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 12; ++trial) {
    ConvCase c;
    c.k_h = c.k_w = 3;
    c.stride = c.dilation = c.group = 1;
    c.pad = pick(0, 2);
    c.x = {pick(1, 2), pick(1, 40), pick(4, 20), pick(4, 40)};
    c.m = pick(1, 40);
    c.bias = pick(0, 1) == 1;
    c.activation = pick(0, 2) == 0 ? "" : pick(0, 1) ? "Relu" : "Clip";
    c.residual = pick(0, 2) == 0;
    runConv(c, "winograd conv " + std::to_string(trial), 6000 + trial);
  }
  // Layers split into chunks of rows of tiles (the last one partial, an odd
  // output height); 576-term sums through the transforms stay within 1e-4.
  runConv({{1, 64, 28, 28}, 64, 3, 3, 1, 1, 1, 1, true, "Relu", true}, "winograd 64x28x28", 61);
  runConv({{2, 96, 27, 30}, 70, 3, 3, 1, 1, 1, 1, true, "", true}, "winograd 96x27x30", 62);
}

TEST(LlvmConvKernels, WinogradOddChunkCountsSplitChannels) {
  // An odd number of chunks on two threads splits the middle chunk's output
  // channels (MR blocks) between the threads: ResNet-18's 28x28 layer (7
  // chunks), one chunk with 3 MR blocks (halves of 2 and 1 blocks, channels
  // cutting through the last), 3 chunks with a residual; ctest runs this on
  // one thread and on two.
  ForcedKernel kernel("winograd");
  runConv({{1, 128, 28, 28}, 128, 3, 3, 1, 1, 1, 1, true, "Relu", true}, "winograd 128x28x28", 71);
  runConv({{1, 5, 6, 9}, 21, 3, 3, 1, 1, 1, 1, true, "Clip", false}, "winograd one chunk", 72);
  runConv({{1, 24, 72, 20}, 17, 3, 3, 1, 0, 1, 1, false, "", true}, "winograd 24x72x20", 73);
}

TEST(LlvmConvKernels, PointwiseWithoutPaddingAnyPositionCount) {
  // Phase space equals the output: plain stores, tails cut by P.
  for (int64_t size : {4, 7, 8, 9, 16}) {
    runConv({{1, 24, size, size}, 20, 1, 1, 1, 0, 1, 1, true, "Relu", size % 2 == 0},
            "pointwise " + std::to_string(size), 60 + static_cast<uint32_t>(size));
  }
  // Position tiles read the input in place; a plane that is not a whole
  // number of tiles ends in a masked tile (several chunks, batch 2, groups,
  // output channels not a multiple of MR).
  ForcedKernel positions("positions");
  for (int64_t size : {5, 13, 28}) {
    const int64_t batch = size == 13 ? 2 : 1, group = size == 5 ? 2 : 1;
    runConv({{batch, 64, size, size + 1}, 22, 1, 1, 1, 0, 1, group, true, "Clip", size != 13},
            "pointwise in place " + std::to_string(size), 90 + static_cast<uint32_t>(size));
  }
}

TEST(LlvmConvKernels, DepthwiseRandomShapes) {
  std::mt19937 rng(23);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 16; ++trial) {
    ConvCase c;
    c.k_h = pick(1, 5);
    c.k_w = pick(1, 5);
    c.stride = pick(1, 3);
    c.pad = pick(0, 2);
    c.dilation = pick(1, 2);
    const int64_t min_size = (std::max(c.k_h, c.k_w) - 1) * c.dilation + 1;
    const int64_t channels = pick(1, 12);
    // Widths around multiples of the vector width: full and masked tails.
    c.x = {pick(1, 2), channels, min_size + pick(0, 20), min_size + pick(0, 40)};
    c.group = channels;
    c.m = channels;
    c.bias = pick(0, 1) == 1;
    c.activation = pick(0, 2) == 0 ? "" : pick(0, 1) ? "Relu" : "Clip";
    c.residual = pick(0, 2) == 0;
    runConv(c, "depthwise " + std::to_string(trial), 5000 + trial);
  }
}

TEST(LlvmConvKernels, DepthwiseStride2ReadsRowsDirectly) {
  // 3x3, stride 2, padding 1 (MobileNetV2's downsampling layers) reads input
  // rows straight into registers: widths around multiples of two vectors
  // (loads cut by the row end), odd sizes (the last column and row are
  // padding), single-row and single-column inputs, batch 2, fused epilogues.
  const std::vector<std::pair<int64_t, int64_t>> sizes = {{1, 1},  {2, 3},  {5, 7},  {9, 31}, {8, 32},
                                                          {7, 33}, {6, 63}, {4, 64}, {3, 65}, {12, 112}};
  uint32_t seed = 7000;
  for (const auto& [h, w] : sizes) {
    const int64_t channels = 1 + static_cast<int64_t>(seed % 5);
    const bool residual = seed % 2 == 0;
    const char* activation = seed % 3 == 0 ? "" : seed % 3 == 1 ? "Relu" : "Clip";
    runConv({{1 + static_cast<int64_t>(seed % 2), channels, h, w},
             channels,
             3,
             3,
             2,
             1,
             1,
             channels,
             seed % 4 != 3,
             activation,
             residual},
            "depthwise stride 2 " + std::to_string(h) + "x" + std::to_string(w), seed);
    ++seed;
  }
}

TEST(LlvmConvKernels, DepthwiseStride1ReadsRowsDirectly) {
  // Stride-1 layers read input rows in place, lanes outside a row masked:
  // kernels 1 to 5 (square and not), padding from none to more than the
  // kernel reaches (vectors of padding only), widths around multiples of the
  // vector width, single-row and single-column inputs.
  struct Case {
    int64_t h, w, k_h, k_w, pad;
  };
  const std::vector<Case> cases = {{1, 1, 1, 1, 0},  {1, 1, 3, 3, 1},   {5, 7, 3, 3, 1},    {7, 16, 3, 3, 1},
                                   {9, 17, 3, 3, 0}, {14, 14, 3, 3, 1}, {3, 33, 5, 5, 2},   {6, 31, 5, 3, 2},
                                   {4, 9, 3, 5, 3},  {2, 40, 1, 3, 1},  {12, 112, 3, 3, 1}, {8, 15, 2, 2, 1}};
  uint32_t seed = 7500;
  for (const Case& k : cases) {
    const int64_t channels = 1 + static_cast<int64_t>(seed % 4);
    ConvCase c{{1 + static_cast<int64_t>(seed % 2), channels, k.h, k.w},
               channels,
               k.k_h,
               k.k_w,
               1,
               k.pad,
               1,
               channels,
               seed % 3 != 2,
               seed % 3 == 0   ? ""
               : seed % 3 == 1 ? "Relu"
                               : "Clip",
               seed % 2 == 0};
    runConv(c,
            "depthwise stride 1 " + std::to_string(k.h) + "x" + std::to_string(k.w) + " k " + std::to_string(k.k_h) +
                "x" + std::to_string(k.k_w) + " pad " + std::to_string(k.pad),
            seed);
    ++seed;
  }
}

TEST(LlvmConvKernels, ArmTargetsCompileEveryKernel) {
  // The epilogues use masked compress stores, scatters and gathers, which
  // the ARM back ends expand: every kernel must still compile for the boards.
  std::mt19937 rng(24);
  ir::Graph g;
  ir::Value* x = g.addInput("x", {rt::DType::F32, {1, 8, 14, 14}});
  auto conv = [&](ir::Value* in, int64_t c, int64_t m, int64_t k, int64_t stride, int64_t group,
                  const std::string& name) {
    rt::AttributeMap a;
    a.set("strides", std::vector<int64_t>{stride, stride});
    a.set("pads", std::vector<int64_t>(4, k / 2));
    a.set("group", group);
    a.set("activation", std::string("Relu"));
    ir::Value* w = g.addConstant(name + ".w", randomTensor({m, c / group, k, k}, rng));
    return g.addNode("Conv", {in, w, g.addConstant(name + ".b", randomTensor({m}, rng))}, 1, a, name)->output();
  };
  ir::Value* y = conv(x, 8, 16, 3, 1, 1, "dense");
  y = conv(y, 16, 16, 3, 2, 16, "depthwise");
  y = conv(y, 16, 24, 1, 1, 1, "pointwise");
  g.addOutput(conv(y, 24, 8, 3, 2, 1, "strided"));
  passes::inferShapes(g);
  for (const char* kernel : {"positions", "channels", "winograd"}) {
    ForcedKernel forced(kernel);
    for (const char* target : {"armv7", "aarch64"}) {
      const rt::Artifact a = compileShared(g, CpuTarget::named(target));
      ASSERT_TRUE(a.blobs.count("llvm.so")) << target;
      const std::vector<uint8_t>& so = a.blobs.at("llvm.so");
      ASSERT_GT(so.size(), 4u) << target;
      EXPECT_EQ(std::string(so.begin(), so.begin() + 4),
                "\x7f"
                "ELF")
          << kernel << " kernel for " << target;
    }
  }
}

}  // namespace
}  // namespace vdla::cpu::test
