// Conv, ConvInteger and QLinearConv against a direct, definition-style
// convolution (one output element at a time, explicit bounds checks, double
// accumulation) on random shapes, and quantised cases computed by hand.
#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

struct ConvParams {
  int64_t group = 1;
  Ints strides{1, 1, 1}, dilations{1, 1, 1};
  Ints pads_begin{0, 0, 0}, pads_end{0, 0, 0};
};

// x: [N, C, D, H, W], w: [M, C/group, KD, KH, KW]; returns [N, M, OD, OH, OW].
std::vector<double> directConv3d(const Tensor& x, const Tensor& w, const std::vector<double>& bias, const ConvParams& p,
                                 Shape* out_shape) {
  const int64_t N = x.dim(0), C = x.dim(1), M = w.dim(0), Cg = C / p.group, Mg = M / p.group;
  int64_t in[3], k[3], out[3];
  for (int i = 0; i < 3; ++i) {
    in[i] = x.dim(2 + i);
    k[i] = w.dim(2 + i);
    out[i] = (in[i] + p.pads_begin[i] + p.pads_end[i] - ((k[i] - 1) * p.dilations[i] + 1)) / p.strides[i] + 1;
  }
  *out_shape = {N, M, out[0], out[1], out[2]};
  std::vector<double> y;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t od = 0; od < out[0]; ++od)
        for (int64_t oh = 0; oh < out[1]; ++oh)
          for (int64_t ow = 0; ow < out[2]; ++ow) {
            double acc = bias.empty() ? 0.0 : bias[m];
            const int64_t g = m / Mg;
            for (int64_t c = 0; c < Cg; ++c)
              for (int64_t kd = 0; kd < k[0]; ++kd)
                for (int64_t kh = 0; kh < k[1]; ++kh)
                  for (int64_t kw = 0; kw < k[2]; ++kw) {
                    const int64_t id = od * p.strides[0] + kd * p.dilations[0] - p.pads_begin[0];
                    const int64_t ih = oh * p.strides[1] + kh * p.dilations[1] - p.pads_begin[1];
                    const int64_t iw = ow * p.strides[2] + kw * p.dilations[2] - p.pads_begin[2];
                    if (id < 0 || ih < 0 || iw < 0 || id >= in[0] || ih >= in[1] || iw >= in[2]) continue;
                    const int64_t xi = (((n * C + g * Cg + c) * in[0] + id) * in[1] + ih) * in[2] + iw;
                    const int64_t wi = (((m * Cg + c) * k[0] + kd) * k[1] + kh) * k[2] + kw;
                    acc += x.getAsDouble(xi) * w.getAsDouble(wi);
                  }
            y.push_back(acc);
          }
  return y;
}

// Runs ref.Conv on a 2-D case and compares with the direct 3-D definition.
void checkConv2d(std::mt19937& rng, Shape xs, Shape ws, int64_t group, Ints strides, Ints dilations, Ints pads,
                 bool with_bias) {
  SCOPED_TRACE("x " + shapeToString(xs) + " w " + shapeToString(ws) + " group " + std::to_string(group) + " strides " +
               shapeToString(strides) + " dilations " + shapeToString(dilations) + " pads " + shapeToString(pads));
  Tensor x = randomF32(xs, rng), w = randomF32(ws, rng), b;
  std::vector<double> bias;
  if (with_bias) {
    b = randomF32({ws[0]}, rng);
    for (int64_t i = 0; i < ws[0]; ++i) bias.push_back(b.data<float>()[i]);
  }
  ConvParams p;
  p.group = group;
  p.strides = {1, strides[0], strides[1]};
  p.dilations = {1, dilations[0], dilations[1]};
  p.pads_begin = {0, pads[0], pads[1]};
  p.pads_end = {0, pads[2], pads[3]};
  Shape out5;
  std::vector<double> want = directConv3d(x.reshaped({xs[0], xs[1], 1, xs[2], xs[3]}),
                                          w.reshaped({ws[0], ws[1], 1, ws[2], ws[3]}), bias, p, &out5);
  Shape out = {out5[0], out5[1], out5[3], out5[4]};
  AttributeMap a = makeAttrs({{"group", group}, {"strides", strides}, {"dilations", dilations}, {"pads", pads}});
  Tensor y = run1("Conv", {x, w, b}, DType::F32, out, a);
  ASSERT_EQ(y.shape(), out);
  for (int64_t i = 0; i < y.numElements(); ++i)
    ASSERT_NEAR(y.data<float>()[i], want[i], 1e-4 * std::max(1.0, std::fabs(want[i]))) << "element " << i;
}

TEST(ConvKernel, MatchesDirectDefinitionOnRandomShapes) {
  std::mt19937 rng(1234);
  checkConv2d(rng, {1, 3, 7, 7}, {4, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true);
  checkConv2d(rng, {2, 4, 9, 8}, {6, 2, 3, 2}, 2, {2, 1}, {1, 2}, {0, 1, 2, 0}, true);     // groups, asym pads
  checkConv2d(rng, {1, 6, 10, 10}, {6, 1, 3, 3}, 6, {2, 2}, {1, 1}, {1, 1, 1, 1}, true);   // depthwise
  checkConv2d(rng, {1, 5, 12, 11}, {3, 5, 3, 3}, 1, {1, 1}, {2, 3}, {2, 0, 1, 3}, false);  // dilation
  checkConv2d(rng, {3, 8, 5, 5}, {16, 8, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, true);    // pointwise path
  checkConv2d(rng, {1, 4, 6, 6}, {4, 4, 1, 1}, 1, {2, 2}, {1, 1}, {1, 0, 0, 1}, true);     // strided 1x1 with pads
  checkConv2d(rng, {1, 2, 4, 4}, {2, 2, 5, 5}, 1, {1, 1}, {1, 1}, {2, 2, 2, 2}, true);     // kernel wider than input
  for (int trial = 0; trial < 20; ++trial) {
    std::uniform_int_distribution<int64_t> d(1, 4);
    const int64_t group = d(rng), cg = d(rng), mg = d(rng), kh = d(rng), kw = d(rng);
    const int64_t sh = d(rng), sw = d(rng), dh = d(rng) % 3 + 1, dw = d(rng) % 3 + 1;
    Ints pads = {d(rng) - 1, d(rng) - 1, d(rng) - 1, d(rng) - 1};
    const int64_t h = (kh - 1) * dh + 1 + d(rng) * 2, w = (kw - 1) * dw + 1 + d(rng) * 3;
    checkConv2d(rng, {d(rng) % 2 + 1, group * cg, h, w}, {group * mg, cg, kh, kw}, group, {sh, sw}, {dh, dw}, pads,
                trial % 2 == 0);
  }
}

TEST(ConvKernel, OneAndThreeSpatialDimensions) {
  std::mt19937 rng(7);
  // 1-D: [N, C, W] against the 3-D definition with unit depth and height.
  Tensor x = randomF32({2, 4, 11}, rng), w = randomF32({6, 2, 3}, rng);
  ConvParams p;
  p.group = 2;
  p.strides = {1, 1, 2};
  p.dilations = {1, 1, 2};
  p.pads_begin = {0, 0, 1};
  p.pads_end = {0, 0, 2};
  Shape out5;
  std::vector<double> want = directConv3d(x.reshaped({2, 4, 1, 1, 11}), w.reshaped({6, 2, 1, 1, 3}), {}, p, &out5);
  Tensor y =
      run1("Conv", {x, w}, DType::F32, {2, 6, out5[4]},
           makeAttrs({{"group", int64_t{2}}, {"strides", Ints{2}}, {"dilations", Ints{2}}, {"pads", Ints{1, 2}}}));
  for (int64_t i = 0; i < y.numElements(); ++i) ASSERT_NEAR(y.data<float>()[i], want[i], 1e-4);

  Tensor x3 = randomF32({1, 2, 5, 6, 4}, rng), w3 = randomF32({3, 2, 2, 3, 2}, rng);
  ConvParams p3;
  p3.strides = {2, 1, 1};
  p3.pads_begin = {1, 0, 1};
  p3.pads_end = {0, 1, 1};
  std::vector<double> want3 = directConv3d(x3, w3, {}, p3, &out5);
  Tensor y3 = run1("Conv", {x3, w3}, DType::F32, out5,
                   makeAttrs({{"strides", Ints{2, 1, 1}}, {"pads", Ints{1, 0, 1, 0, 1, 1}}}));
  for (int64_t i = 0; i < y3.numElements(); ++i) ASSERT_NEAR(y3.data<float>()[i], want3[i], 1e-4);
}

TEST(ConvKernel, AutoPadSameUpperAndLowerPutTheOddPadAtOppositeEnds) {
  std::mt19937 rng(3);
  Tensor x = randomF32({1, 2, 5, 5}, rng), w = randomF32({3, 2, 2, 2}, rng);
  // in 5, kernel 2, stride 1: output 5 needs one pad, at the end (UPPER) or the start (LOWER).
  Tensor upper = run1("Conv", {x, w}, DType::F32, {1, 3, 5, 5}, makeAttrs({{"auto_pad", std::string("SAME_UPPER")}}));
  Tensor lower = run1("Conv", {x, w}, DType::F32, {1, 3, 5, 5}, makeAttrs({{"auto_pad", std::string("SAME_LOWER")}}));
  expectNear(upper, run1("Conv", {x, w}, DType::F32, {1, 3, 5, 5}, makeAttrs({{"pads", Ints{0, 0, 1, 1}}})));
  expectNear(lower, run1("Conv", {x, w}, DType::F32, {1, 3, 5, 5}, makeAttrs({{"pads", Ints{1, 1, 0, 0}}})));
  Tensor valid = run1("Conv", {x, w}, DType::F32, {1, 3, 4, 4}, makeAttrs({{"auto_pad", std::string("VALID")}}));
  expectNear(valid, run1("Conv", {x, w}, DType::F32, {1, 3, 4, 4}));
}

TEST(ConvKernel, FusedActivationsApplyAfterTheBias) {
  // 1x1 conv of a single channel: y = 2x + b.
  Tensor x = Tensor::fromVector<float>({1, 1, 1, 4}, {-3, -1, 1, 5});
  Tensor w = Tensor::fromVector<float>({1, 1, 1, 1}, {2});
  Tensor b = Tensor::fromVector<float>({1}, {1});
  Tensor relu = run1("Conv", {x, w, b}, DType::F32, {1, 1, 1, 4}, makeAttrs({{"activation", std::string("Relu")}}));
  EXPECT_EQ(relu.toVector<float>(), (std::vector<float>{0, 0, 3, 11}));
  Tensor clip =
      run1("Conv", {x, w, b}, DType::F32, {1, 1, 1, 4},
           makeAttrs({{"activation", std::string("Clip")}, {"activation_min", 0.0}, {"activation_max", 6.0}}));
  EXPECT_EQ(clip.toVector<float>(), (std::vector<float>{0, 0, 3, 6}));
  EXPECT_THROW(run1("Conv", {x, w, b}, DType::F32, {1, 1, 1, 4}, makeAttrs({{"activation", std::string("Gelu")}})),
               KernelError);
}

TEST(ConvKernel, RejectsBadArguments) {
  Tensor x(DType::F32, {1, 4, 5, 5}), w(DType::F32, {6, 3, 3, 3});
  EXPECT_THROW(run1("Conv", {x, w}, DType::F32, {1, 6, 3, 3}), KernelError);  // 4 channels vs 3
  Tensor w2(DType::F32, {6, 4, 3, 3});
  EXPECT_THROW(run1("Conv", {x, w2}, DType::F32, {1, 6, 5, 5}), KernelError);  // wrong output shape
}

TEST(ConvIntegerKernel, MatchesDirectDefinitionWithZeroPoints) {
  std::mt19937 rng(11);
  Tensor x = randomInt<uint8_t>({2, 4, 6, 7}, rng, 0, 255);
  Tensor w = randomInt<int8_t>({4, 2, 3, 3}, rng, -128, 127);
  Tensor x_zp = Tensor::fromVector<uint8_t>({}, {131});
  Tensor w_zp = Tensor::fromVector<int8_t>({4}, {-3, 0, 5, 127});
  Shape out5;
  ConvParams p;
  p.group = 2;
  p.pads_begin = {0, 1, 0};
  p.pads_end = {0, 0, 2};
  p.strides = {1, 2, 1};
  // Centre by hand, then run the fp definition (exact in double for these sizes).
  Tensor xc(DType::F32, {2, 4, 1, 6, 7}), wc(DType::F32, {4, 2, 1, 3, 3});
  for (int64_t i = 0; i < x.numElements(); ++i) xc.data<float>()[i] = x.data<uint8_t>()[i] - 131.0f;
  for (int64_t i = 0; i < w.numElements(); ++i)
    wc.data<float>()[i] = float(w.data<int8_t>()[i] - w_zp.data<int8_t>()[i / 18]);
  std::vector<double> want = directConv3d(xc, wc, {}, p, &out5);
  Tensor y = run1("ConvInteger", {x, w, x_zp, w_zp}, DType::I32, {2, 4, out5[3], out5[4]},
                  makeAttrs({{"group", int64_t{2}}, {"pads", Ints{1, 0, 0, 2}}, {"strides", Ints{2, 1}}}));
  for (int64_t i = 0; i < y.numElements(); ++i) ASSERT_EQ(y.data<int32_t>()[i], static_cast<int32_t>(want[i]));
}

TEST(QLinearConvKernel, RequantisesWithRoundHalfToEvenAndSaturates) {
  // 1x1 conv with weight 1: the accumulator is x - x_zp; w_scale 0.5 halves it.
  Tensor x = Tensor::fromVector<int8_t>({1, 1, 1, 6}, {5, 7, -5, -7, 100, -100});
  Tensor w = Tensor::fromVector<int8_t>({1, 1, 1, 1}, {1});
  Tensor one = Tensor::fromVector<float>({}, {1.0f}), half = Tensor::fromVector<float>({}, {0.5f});
  Tensor zp8 = Tensor::fromVector<int8_t>({}, {0});
  Tensor y = run1("QLinearConv", {x, one, zp8, w, half, zp8, one, zp8}, DType::I8, {1, 1, 1, 6});
  // 2.5 -> 2, 3.5 -> 4, -2.5 -> -2, -3.5 -> -4, 50, -50
  EXPECT_EQ(y.toVector<int8_t>(), (std::vector<int8_t>{2, 4, -2, -4, 50, -50}));
  // u8 output with zero point 200 and a bias of 100 accumulator units: saturates at 255.
  Tensor y_zp = Tensor::fromVector<uint8_t>({}, {200});
  Tensor bias = Tensor::fromVector<int32_t>({1}, {100});
  Tensor yu = run1("QLinearConv", {x, one, zp8, w, half, zp8, one, y_zp, bias}, DType::U8, {1, 1, 1, 6});
  // (acc + 100) / 2: 52.5 -> 52, 53.5 -> 54, 47.5 -> 48, 46.5 -> 46, 100, 0; + 200 saturating.
  EXPECT_EQ(yu.toVector<uint8_t>(), (std::vector<uint8_t>{252, 254, 248, 246, 255, 200}));
}

TEST(QLinearConvKernel, PerChannelWeightScalesAndZeroPoints) {
  std::mt19937 rng(5);
  const int64_t M = 3;
  Tensor x = randomInt<uint8_t>({1, 2, 5, 5}, rng, 0, 255);
  Tensor w = randomInt<uint8_t>({M, 2, 3, 3}, rng, 0, 255);
  Tensor x_scale = Tensor::fromVector<float>({}, {0.02f}), x_zp = Tensor::fromVector<uint8_t>({}, {120});
  Tensor w_scale = Tensor::fromVector<float>({M}, {0.01f, 0.003f, 0.05f});
  Tensor w_zp = Tensor::fromVector<uint8_t>({M}, {128, 100, 140});
  Tensor y_scale = Tensor::fromVector<float>({}, {0.7f}), y_zp = Tensor::fromVector<uint8_t>({}, {128});
  Tensor bias = Tensor::fromVector<int32_t>({M}, {1000, -2000, 30});
  Tensor y = run1("QLinearConv", {x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias}, DType::U8, {1, M, 5, 5},
                  makeAttrs({{"pads", Ints{1, 1, 1, 1}}}));
  // Reference: exact integer accumulation, then the float requantisation.
  for (int64_t m = 0; m < M; ++m)
    for (int64_t oh = 0; oh < 5; ++oh)
      for (int64_t ow = 0; ow < 5; ++ow) {
        int64_t acc = bias.data<int32_t>()[m];
        for (int64_t c = 0; c < 2; ++c)
          for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
              const int64_t ih = oh + kh - 1, iw = ow + kw - 1;
              if (ih < 0 || iw < 0 || ih >= 5 || iw >= 5) continue;
              acc += (int64_t(x.data<uint8_t>()[(c * 5 + ih) * 5 + iw]) - 120) *
                     (int64_t(w.data<uint8_t>()[((m * 2 + c) * 3 + kh) * 3 + kw]) - w_zp.data<uint8_t>()[m]);
            }
        const float scale = 0.02f * w_scale.data<float>()[m] / 0.7f;
        const float v = std::nearbyint(static_cast<float>(acc) * scale) + 128.0f;
        const int want = static_cast<int>(std::min(255.0f, std::max(0.0f, v)));
        ASSERT_EQ(y.data<uint8_t>()[(m * 5 + oh) * 5 + ow], want) << m << "," << oh << "," << ow;
      }
}

}  // namespace
}  // namespace vdla::rt::testing
