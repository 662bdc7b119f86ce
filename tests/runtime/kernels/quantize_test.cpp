// QuantizeLinear, DequantizeLinear, QLinearAdd and QLinearMul against values
// computed by hand: ties round half to even, results saturate.
#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

TEST(QuantizeLinearKernel, RoundsHalfToEvenAndSaturatesInt8) {
  Tensor x = Tensor::fromVector<float>({8}, {0.0f, 2.5f, -2.5f, 3.5f, -3.5f, 0.5f, 1000.0f, -1000.0f});
  Tensor scale = Tensor::fromVector<float>({}, {1.0f});
  Tensor zp = Tensor::fromVector<int8_t>({}, {0});
  Tensor y = run1("QuantizeLinear", {x, scale, zp}, DType::I8, {8});
  EXPECT_EQ(y.toVector<int8_t>(), (std::vector<int8_t>{0, 2, -2, 4, -4, 0, 127, -128}));
}

TEST(QuantizeLinearKernel, Uint8WithZeroPointAndDefaultType) {
  // x / 2: 2.5 -> 2, -2.5 -> -2, 1.5 -> 2; + 128.
  Tensor x = Tensor::fromVector<float>({5}, {5.0f, -5.0f, 3.0f, 400.0f, -400.0f});
  Tensor scale = Tensor::fromVector<float>({}, {2.0f});
  Tensor y = run1("QuantizeLinear", {x, scale, Tensor::fromVector<uint8_t>({}, {128})}, DType::U8, {5});
  EXPECT_EQ(y.toVector<uint8_t>(), (std::vector<uint8_t>{130, 126, 130, 255, 0}));
  // No zero point: uint8 with zero point 0; negatives saturate at 0.
  Tensor d = run1("QuantizeLinear", {x, scale}, DType::U8, {5});
  EXPECT_EQ(d.toVector<uint8_t>(), (std::vector<uint8_t>{2, 0, 2, 200, 0}));
}

TEST(QuantizeLinearKernel, PerAxis) {
  Tensor x = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor scale = Tensor::fromVector<float>({3}, {1.0f, 2.0f, 4.0f});
  Tensor zp = Tensor::fromVector<int8_t>({3}, {0, 10, -10});
  Tensor y = run1("QuantizeLinear", {x, scale, zp}, DType::I8, {2, 3}, makeAttrs({{"axis", int64_t{1}}}));
  // column 0: 1, 4; column 1: 1+10, 2.5->2 +10; column 2: 0.75->1 -10, 1.5->2 -10
  EXPECT_EQ(y.toVector<int8_t>(), (std::vector<int8_t>{1, 11, -9, 4, 12, -8}));
  Tensor rows = Tensor::fromVector<float>({2}, {1.0f, 0.5f});
  Tensor yr = run1("QuantizeLinear", {x, rows, Tensor::fromVector<int8_t>({2}, {0, 0})}, DType::I8, {2, 3},
                   makeAttrs({{"axis", int64_t{0}}}));
  EXPECT_EQ(yr.toVector<int8_t>(), (std::vector<int8_t>{1, 2, 3, 8, 10, 12}));
  EXPECT_THROW(run1("QuantizeLinear", {x, scale, zp}, DType::I8, {2, 3}, makeAttrs({{"axis", int64_t{0}}})),
               KernelError);
  EXPECT_THROW(run1("QuantizeLinear", {x, scale, zp}, DType::I8, {2, 3}, makeAttrs({{"block_size", int64_t{2}}})),
               KernelError);
}

TEST(DequantizeLinearKernel, PerTensorPerAxisAndInt32) {
  Tensor x = Tensor::fromVector<uint8_t>({4}, {0, 128, 255, 130});
  Tensor y = run1("DequantizeLinear",
                  {x, Tensor::fromVector<float>({}, {0.5f}), Tensor::fromVector<uint8_t>({}, {128})}, DType::F32, {4});
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{-64.0f, 0.0f, 63.5f, 1.0f}));
  Tensor x8 = Tensor::fromVector<int8_t>({2, 2}, {-128, 127, 1, -1});
  Tensor y8 = run1("DequantizeLinear",
                   {x8, Tensor::fromVector<float>({2}, {1.0f, 0.25f}), Tensor::fromVector<int8_t>({2}, {0, 1})},
                   DType::F32, {2, 2}, makeAttrs({{"axis", int64_t{1}}}));
  EXPECT_EQ(y8.toVector<float>(), (std::vector<float>{-128.0f, 31.5f, 1.0f, -0.5f}));
  Tensor x32 = Tensor::fromVector<int32_t>({2}, {-1000000, 7});
  Tensor y32 = run1("DequantizeLinear", {x32, Tensor::fromVector<float>({}, {0.001f})}, DType::F32, {2});
  EXPECT_FLOAT_EQ(y32.data<float>()[0], -1000000 * 0.001f);
  EXPECT_FLOAT_EQ(y32.data<float>()[1], 7 * 0.001f);
}

TEST(QuantizeLinearKernel, RoundTripThroughDequantize) {
  std::mt19937 rng(4);
  Tensor x = randomF32({64}, rng, -3.0f, 3.0f);
  Tensor scale = Tensor::fromVector<float>({}, {0.03f});
  Tensor zp = Tensor::fromVector<uint8_t>({}, {100});
  Tensor q = run1("QuantizeLinear", {x, scale, zp}, DType::U8, {64});
  Tensor back = run1("DequantizeLinear", {q, scale, zp}, DType::F32, {64});
  for (int64_t i = 0; i < 64; ++i) {
    const float v = x.data<float>()[i];
    if (v > -3.0f + 0.015f && v < (255 - 100) * 0.03f) {
      EXPECT_NEAR(back.data<float>()[i], v, 0.0151f);
    }
  }
}

Tensor f(float v) { return Tensor::fromVector<float>({}, {v}); }
Tensor u(uint8_t v) { return Tensor::fromVector<uint8_t>({}, {v}); }

TEST(QLinearAddKernel, DequantiseAddRequantise) {
  // (A + B) / 2: 1, 2.5 -> 2, 3.5 -> 4, 300 saturates.
  Tensor a = Tensor::fromVector<uint8_t>({4}, {1, 3, 3, 200});
  Tensor b = Tensor::fromVector<uint8_t>({4}, {1, 2, 4, 250});
  Tensor y = run1("com.microsoft.QLinearAdd", {a, f(1), u(0), b, f(1), u(0), f(2), u(0)}, DType::U8, {4});
  EXPECT_EQ(y.toVector<uint8_t>(), (std::vector<uint8_t>{1, 2, 4, 225}));
  // Zero points and scales: A = 0.5 * (a - 10), B = 0.25 * (b - 4), C zp 100.
  Tensor y2 = run1("com.microsoft.QLinearAdd", {a, f(0.5f), u(10), b, f(0.25f), u(4), f(1), u(100)}, DType::U8, {4});
  // a-10 = -9,-7,-7,190 -> -4.5,-3.5,-3.5,95; b-4 = -3,-2,0,246 -> -0.75,-0.5,0,61.5
  // sums -5.25 -> -5, -4 -> -4, -3.5 -> -4, 156.5 -> 156; +100 and saturate.
  EXPECT_EQ(y2.toVector<uint8_t>(), (std::vector<uint8_t>{95, 96, 96, 255}));
}

TEST(QLinearAddKernel, BroadcastsAndInt8) {
  Tensor a = Tensor::fromVector<int8_t>({2, 2}, {-128, 0, 5, 127});
  Tensor b = Tensor::fromVector<int8_t>({2}, {-1, 1});
  Tensor z = Tensor::fromVector<int8_t>({}, {0});
  Tensor y = run1("com.microsoft.QLinearAdd", {a, f(1), z, b, f(1), z, f(1), z}, DType::I8, {2, 2});
  EXPECT_EQ(y.toVector<int8_t>(), (std::vector<int8_t>{-128, 1, 4, 127}));
}

TEST(QLinearMulKernel, DequantiseMultiplyRequantise) {
  Tensor a = Tensor::fromVector<uint8_t>({3}, {5, 7, 200});
  Tensor b = Tensor::fromVector<uint8_t>({3}, {1, 1, 2});
  // a * b * 0.5: 2.5 -> 2, 3.5 -> 4, 200 -> 200.
  Tensor y = run1("com.microsoft.QLinearMul", {a, f(0.5f), u(0), b, f(1), u(0), f(1), u(0)}, DType::U8, {3});
  EXPECT_EQ(y.toVector<uint8_t>(), (std::vector<uint8_t>{2, 4, 200}));
}

}  // namespace
}  // namespace vdla::rt::testing
