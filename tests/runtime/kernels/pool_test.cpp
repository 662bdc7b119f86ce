// Pooling kernels: hand-computed windows (pads, strides, ceil_mode,
// count_include_pad, indices) and a random comparison with a direct definition.
#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

Tensor iota(const Shape& shape, float start = 1) {
  Tensor t(DType::F32, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = start + static_cast<float>(i);
  return t;
}

TEST(MaxPoolKernel, PadsStridesAndIndices) {
  // 4x4 ramp 1..16, kernel 2, stride 2, pads 1 on every side: windows of 1, 2 or 4 taps.
  Tensor x = iota({1, 1, 4, 4});
  auto out = runKernel("MaxPool", {x},
                       {{DType::F32, {1, 1, 3, 3}, Layout::RowMajor}, {DType::I64, {1, 1, 3, 3}, Layout::RowMajor}},
                       makeAttrs({{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}}));
  EXPECT_EQ(out[0].toVector<float>(), (std::vector<float>{1, 3, 4, 9, 11, 12, 13, 15, 16}));
  EXPECT_EQ(out[1].toVector<int64_t>(), (std::vector<int64_t>{0, 2, 3, 8, 10, 11, 12, 14, 15}));
}

TEST(MaxPoolKernel, IndicesCountBatchAndChannel) {
  Tensor x = iota({2, 2, 2, 2});
  auto out = runKernel("MaxPool", {x},
                       {{DType::F32, {2, 2, 1, 1}, Layout::RowMajor}, {DType::I64, {2, 2, 1, 1}, Layout::RowMajor}},
                       makeAttrs({{"kernel_shape", Ints{2, 2}}}));
  EXPECT_EQ(out[1].toVector<int64_t>(), (std::vector<int64_t>{3, 7, 11, 15}));
}

TEST(MaxPoolKernel, CeilModeDropsAWindowThatStartsInThePadding) {
  // in 4, kernel 2, stride 2 => floor 2, ceil 2 (no partial window); in 5 => ceil 3.
  Tensor x5 = iota({1, 1, 1, 5});
  Tensor y = run1("MaxPool", {x5}, DType::F32, {1, 1, 1, 3},
                  makeAttrs({{"kernel_shape", Ints{1, 2}}, {"strides", Ints{1, 2}}, {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{2, 4, 5}));
  // in 3, kernel 1, stride 2, trailing pad 1: ceil((3+1-1)/2)+1 = 3 windows, but
  // the third would start at 4, inside the trailing padding, so it is dropped.
  Tensor x3 = iota({1, 1, 1, 3});
  Tensor y3 = run1("MaxPool", {x3}, DType::F32, {1, 1, 1, 2},
                   makeAttrs({{"kernel_shape", Ints{1, 1}},
                              {"strides", Ints{1, 2}},
                              {"pads", Ints{0, 0, 0, 1}},
                              {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(y3.toVector<float>(), (std::vector<float>{1, 3}));
  // in 4, pads 1/1, kernel 3, stride 2: windows start at -1, 1, 3 (the last is partial).
  Tensor x4 = iota({1, 1, 1, 4});
  Tensor y4 = run1("MaxPool", {x4}, DType::F32, {1, 1, 1, 3},
                   makeAttrs({{"kernel_shape", Ints{1, 3}},
                              {"strides", Ints{1, 2}},
                              {"pads", Ints{0, 1, 0, 1}},
                              {"ceil_mode", int64_t{1}}}));
  EXPECT_EQ(y4.toVector<float>(), (std::vector<float>{2, 4, 4}));
}

TEST(MaxPoolKernel, DilationsAndIntegerTypes) {
  Tensor x = Tensor::fromVector<int8_t>({1, 1, 1, 6}, {-5, 9, -1, 4, 7, -128});
  Tensor y = run1("MaxPool", {x}, DType::I8, {1, 1, 1, 2},
                  makeAttrs({{"kernel_shape", Ints{1, 3}}, {"dilations", Ints{1, 2}}, {"strides", Ints{1, 1}}}));
  EXPECT_EQ(y.toVector<int8_t>(), (std::vector<int8_t>{7, 9}));
  EXPECT_THROW(run1("MaxPool", {x}, DType::I8, {1, 1, 1, 4},
                    makeAttrs({{"kernel_shape", Ints{1, 3}}, {"storage_order", int64_t{1}}})),
               KernelError);
  // Missing attributes and mistyped tensors surface as KernelError too.
  EXPECT_THROW(run1("MaxPool", {x}, DType::I8, {1, 1, 1, 4}), KernelError);
  EXPECT_THROW(run1("GlobalAveragePool", {x}, DType::I8, {1, 1, 1, 1}), KernelError);
}

TEST(AveragePoolKernel, CountIncludePad) {
  Tensor x = iota({1, 1, 3, 3});
  AttributeMap a = makeAttrs({{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}});
  Tensor excl = run1("AveragePool", {x}, DType::F32, {1, 1, 2, 2}, a);
  EXPECT_EQ(excl.toVector<float>(), (std::vector<float>{1, 2.5f, 5.5f, 7}));
  a.set("count_include_pad", int64_t{1});
  Tensor incl = run1("AveragePool", {x}, DType::F32, {1, 1, 2, 2}, a);
  EXPECT_EQ(incl.toVector<float>(), (std::vector<float>{0.25f, 1.25f, 2.75f, 7}));
}

TEST(AveragePoolKernel, CeilModeTapsPastThePaddingNeverCount) {
  // in 5, kernel 2, stride 2, ceil: the 3rd window covers {4, 5}; 5 is past the
  // input with no padding there, so it divides by 1 even with count_include_pad.
  Tensor x = iota({1, 1, 1, 5});
  Tensor y = run1("AveragePool", {x}, DType::F32, {1, 1, 1, 3},
                  makeAttrs({{"kernel_shape", Ints{1, 2}},
                             {"strides", Ints{1, 2}},
                             {"ceil_mode", int64_t{1}},
                             {"count_include_pad", int64_t{1}}}));
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{1.5f, 3.5f, 5}));
}

TEST(AveragePoolKernel, SameUpperMatchesExplicitPads) {
  std::mt19937 rng(2);
  Tensor x = randomF32({2, 3, 6, 7}, rng);
  Tensor same =
      run1("AveragePool", {x}, DType::F32, {2, 3, 2, 3},
           makeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{3, 3}}, {"auto_pad", std::string("SAME_UPPER")}}));
  // in 6: out 2, total pad 0; in 7: out 3, total 2 -> 1/1.
  Tensor explicit_pads =
      run1("AveragePool", {x}, DType::F32, {2, 3, 2, 3},
           makeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{3, 3}}, {"pads", Ints{0, 1, 0, 1}}}));
  expectNear(same, explicit_pads, 1e-6);
}

TEST(GlobalPoolKernels, MeanAndMaxPerChannel) {
  Tensor x = iota({2, 3, 2, 2});
  Tensor avg = run1("GlobalAveragePool", {x}, DType::F32, {2, 3, 1, 1});
  Tensor mx = run1("GlobalMaxPool", {x}, DType::F32, {2, 3, 1, 1});
  EXPECT_EQ(avg.toVector<float>(), (std::vector<float>{2.5f, 6.5f, 10.5f, 14.5f, 18.5f, 22.5f}));
  EXPECT_EQ(mx.toVector<float>(), (std::vector<float>{4, 8, 12, 16, 20, 24}));
}

TEST(QLinearGlobalAveragePoolKernel, RoundsHalfToEvenNchwAndNhwc) {
  // Three channels of 4 values, means 2.5 -> 2, 3, 3.5 -> 4; x_zp 1 shifts by -1 before scaling.
  Tensor x = Tensor::fromVector<uint8_t>({1, 3, 2, 2}, {1, 2, 3, 4, 1, 2, 3, 6, 2, 3, 4, 5});
  Tensor one = Tensor::fromVector<float>({}, {1.0f});
  Tensor z0 = Tensor::fromVector<uint8_t>({}, {0}), z1 = Tensor::fromVector<uint8_t>({}, {1});
  Tensor y = run1("com.microsoft.QLinearGlobalAveragePool", {x, one, z0, one, z0}, DType::U8, {1, 3, 1, 1});
  EXPECT_EQ(y.toVector<uint8_t>(), (std::vector<uint8_t>{2, 3, 4}));
  // (mean - 1) with y_zp 1: 1.5 -> 2, 2, 2.5 -> 2; plus 1.
  Tensor y1 = run1("com.microsoft.QLinearGlobalAveragePool", {x, one, z1, one, z1}, DType::U8, {1, 3, 1, 1});
  EXPECT_EQ(y1.toVector<uint8_t>(), (std::vector<uint8_t>{3, 3, 3}));
  // Same data in NHWC.
  Tensor xh(DType::U8, {1, 2, 2, 3});
  for (int64_t c = 0; c < 3; ++c)
    for (int64_t i = 0; i < 4; ++i) xh.data<uint8_t>()[i * 3 + c] = x.data<uint8_t>()[c * 4 + i];
  Tensor yh = run1("com.microsoft.QLinearGlobalAveragePool", {xh, one, z0, one, z0}, DType::U8, {1, 1, 1, 3},
                   makeAttrs({{"channels_last", int64_t{1}}}));
  EXPECT_EQ(yh.toVector<uint8_t>(), (std::vector<uint8_t>{2, 3, 4}));
  // Saturation: y_scale 0.005 makes every mean (2.5, 3, 3.5) over 255.
  Tensor small = Tensor::fromVector<float>({}, {0.005f});
  Tensor ys = run1("com.microsoft.QLinearGlobalAveragePool", {x, one, z0, small, z0}, DType::U8, {1, 3, 1, 1});
  EXPECT_EQ(ys.toVector<uint8_t>(), (std::vector<uint8_t>{255, 255, 255}));
  // int8 with negative values: mean -2.5 -> -2.
  Tensor x8 = Tensor::fromVector<int8_t>({1, 1, 1, 2}, {-2, -3});
  Tensor z8 = Tensor::fromVector<int8_t>({}, {0});
  Tensor y8 = run1("com.microsoft.QLinearGlobalAveragePool", {x8, one, z8, one, z8}, DType::I8, {1, 1, 1, 1});
  EXPECT_EQ(y8.data<int8_t>()[0], -2);
}

}  // namespace
}  // namespace vdla::rt::testing
