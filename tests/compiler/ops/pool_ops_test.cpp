// Type inference of the pooling operators: padding modes, ceil_mode and errors.
#include "op_test_util.h"

namespace vdla::ir::testing {
namespace {

TEST(PoolShape, MaxPoolPadsAndCeilMode) {
  // ResNet: 112 -> 56 with kernel 3, stride 2, pads 1.
  EXPECT_EQ(infer1("MaxPool", {f32({1, 64, 112, 112})},
                   makeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"pads", Ints{1, 1, 1, 1}}})),
            f32({1, 64, 56, 56}));
  // in 5, kernel 2, stride 2: floor 2, ceil 3.
  AttributeMap a = makeAttrs({{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}});
  EXPECT_EQ(infer1("MaxPool", {f32({1, 1, 5, 5})}, a), f32({1, 1, 2, 2}));
  a.set("ceil_mode", int64_t{1});
  EXPECT_EQ(infer1("MaxPool", {f32({1, 1, 5, 5})}, a), f32({1, 1, 3, 3}));
  // ceil_mode drops a window that would start in the trailing padding: in 3,
  // kernel 1, stride 2, pad end 1 -> ceil gives 3, reduced to 2.
  EXPECT_EQ(
      infer1("MaxPool", {f32({1, 1, 3})},
             makeAttrs(
                 {{"kernel_shape", Ints{1}}, {"strides", Ints{2}}, {"pads", Ints{0, 1}}, {"ceil_mode", int64_t{1}}})),
      f32({1, 1, 2}));
  auto both = infer("MaxPool", {tt(DType::U8, {1, 2, 4, 4})}, makeAttrs({{"kernel_shape", Ints{2, 2}}}), 2);
  EXPECT_EQ(both[0], tt(DType::U8, {1, 2, 3, 3}));
  EXPECT_EQ(both[1], tt(DType::I64, {1, 2, 3, 3}));
}

TEST(PoolShape, AutoPadAndAveragePool) {
  EXPECT_EQ(
      infer1(
          "AveragePool", {f32({1, 1, 7, 6})},
          makeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"auto_pad", std::string("SAME_UPPER")}})),
      f32({1, 1, 4, 3}));
  EXPECT_EQ(
      infer1("AveragePool", {f32({1, 1, 7, 6})},
             makeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"auto_pad", std::string("VALID")}})),
      f32({1, 1, 3, 2}));
  EXPECT_EQ(infer1("GlobalAveragePool", {f32({2, 1280, 7, 7})}), f32({2, 1280, 1, 1}));
  EXPECT_EQ(infer1("GlobalMaxPool", {f32({2, 3, 4})}), f32({2, 3, 1}));
}

TEST(PoolShape, Errors) {
  EXPECT_INFER_ERROR(inferError("MaxPool", {f32({1, 1, 4, 4})},
                                makeAttrs({{"kernel_shape", Ints{2, 2}}, {"storage_order", int64_t{1}}})),
                     "node 'n0' (MaxPool): attribute 'storage_order' = 1 is not supported");
  EXPECT_INFER_ERROR(inferError("MaxPool", {f32({1, 1, 4, 4})}), "missing attribute 'kernel_shape'");
  EXPECT_INFER_ERROR(inferError("MaxPool", {f32({1, 1, 4, 4})}, makeAttrs({{"kernel_shape", Ints{2}}})),
                     "kernel [2] does not match the 2 spatial dimensions");
  EXPECT_INFER_ERROR(inferError("AveragePool", {f32({1, 1, 4, 4})},
                                makeAttrs({{"kernel_shape", Ints{2, 2}}, {"count_include_pad", int64_t{2}}})),
                     "attribute 'count_include_pad' must be 0 or 1");
  EXPECT_INFER_ERROR(inferError("AveragePool", {f32({1, 1, 4, 4})},
                                makeAttrs({{"kernel_shape", Ints{2, 2}}, {"ceil_mode", int64_t{3}}})),
                     "attribute 'ceil_mode' must be 0 or 1");
  EXPECT_INFER_ERROR(inferError("GlobalAveragePool", {f32({1, 8})}), "rank 3 to 5");
}

TEST(PoolShape, QLinearGlobalAveragePool) {
  std::vector<In> in = {tt(DType::U8, {1, 1280, 7, 7}), f32({}), tt(DType::U8, {}), f32({}), tt(DType::U8, {})};
  EXPECT_EQ(infer1("QLinearGlobalAveragePool", in, {}, "com.microsoft"), tt(DType::U8, {1, 1280, 1, 1}));
  in[0] = tt(DType::U8, {1, 7, 7, 1280});
  EXPECT_EQ(infer1("QLinearGlobalAveragePool", in, makeAttrs({{"channels_last", int64_t{1}}}), "com.microsoft"),
            tt(DType::U8, {1, 1, 1, 1280}));
  in[2] = tt(DType::I8, {});
  EXPECT_INFER_ERROR(inferError("QLinearGlobalAveragePool", in, {}, 1, "com.microsoft"),
                     "(com.microsoft.QLinearGlobalAveragePool): x_zero_point must be u8, got i8");
}

}  // namespace
}  // namespace vdla::ir::testing
