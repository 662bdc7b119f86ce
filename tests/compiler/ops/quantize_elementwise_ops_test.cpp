// Type inference of the quantisation operators and the element-wise family.
#include "op_test_util.h"

namespace vdla::ir::testing {
namespace {

TEST(QuantizeShape, OutputTypeFromZeroPointOrDefault) {
  EXPECT_EQ(infer1("QuantizeLinear", {f32({1, 3}), f32({})}), tt(DType::U8, {1, 3}));
  EXPECT_EQ(infer1("QuantizeLinear", {f32({1, 3}), f32({}), tt(DType::I8, {})}), tt(DType::I8, {1, 3}));
  EXPECT_EQ(infer1("QuantizeLinear", {f32({2, 3}), f32({3}), tt(DType::I8, {3})}), tt(DType::I8, {2, 3}));
  EXPECT_EQ(infer1("QuantizeLinear", {f32({1, 3}), f32({})}, makeAttrs({{"output_dtype", int64_t{3}}})),
            tt(DType::I8, {1, 3}));
  EXPECT_INFER_ERROR(inferError("QuantizeLinear", {f32({2, 3}), f32({2})}),
                     "y_scale has 2 values but axis 1 of [2,3] has 3");
  EXPECT_INFER_ERROR(inferError("QuantizeLinear", {f32({2, 3}), f32({}), tt(DType::I32, {})}),
                     "quantised type must be u8 or i8, got i32");
  EXPECT_INFER_ERROR(inferError("QuantizeLinear", {f32({2, 4}), f32({2, 2})}, makeAttrs({{"block_size", int64_t{2}}})),
                     "attribute 'block_size' = 2 is not supported");
  EXPECT_EQ(infer1("DequantizeLinear", {tt(DType::I32, {16}), f32({})}), f32({16}));
  EXPECT_EQ(infer1("DequantizeLinear", {tt(DType::I8, {16, 3, 3, 3}), f32({16}), tt(DType::I8, {16})},
                   makeAttrs({{"axis", int64_t{0}}})),
            f32({16, 3, 3, 3}));
  EXPECT_INFER_ERROR(inferError("DequantizeLinear", {tt(DType::U8, {4}), f32({}), tt(DType::I8, {})}),
                     "x_zero_point must be u8, got i8");
}

TEST(QLinearAddShape, BroadcastAndTypes) {
  const TensorType s = f32({}), z = tt(DType::U8, {});
  EXPECT_EQ(infer1("QLinearAdd", {tt(DType::U8, {1, 8, 4, 4}), s, z, tt(DType::U8, {8, 1, 1}), s, z, s, z}, {},
                   "com.microsoft"),
            tt(DType::U8, {1, 8, 4, 4}));
  EXPECT_INFER_ERROR(
      inferError("QLinearAdd", {tt(DType::U8, {2, 3}), s, z, tt(DType::U8, {4}), s, z, s, z}, {}, 1, "com.microsoft"),
      "shapes [2,3] and [4] do not broadcast");
  EXPECT_INFER_ERROR(inferError("QLinearAdd", {tt(DType::U8, {2, 3}), f32({3}), z, tt(DType::U8, {3}), s, z, s, z}, {},
                                1, "com.microsoft"),
                     "A_scale must be a scalar");
}

TEST(ElementwiseShape, BinaryBroadcastAndActivation) {
  EXPECT_EQ(infer1("Add", {f32({2, 1, 4}), f32({3, 1})}), f32({2, 3, 4}));
  EXPECT_EQ(
      infer1("Add", {f32({1, 64, 56, 56}), f32({1, 64, 56, 56})}, makeAttrs({{"activation", std::string("Relu")}})),
      f32({1, 64, 56, 56}));
  EXPECT_INFER_ERROR(inferError("Mul", {f32({2, 3}), f32({4})}),
                     "node 'n0' (Mul): shapes [2,3] and [4] do not broadcast");
  EXPECT_INFER_ERROR(inferError("Add", {f32({2}), tt(DType::I64, {2})}), "operand types differ: f32 and i64");
  EXPECT_EQ(infer1("Div", {tt(DType::I64, {2}), tt(DType::I64, {})}), tt(DType::I64, {2}));
}

TEST(ElementwiseShape, Mod) {
  EXPECT_EQ(infer1("Mod", {tt(DType::I64, {2, 1}), tt(DType::I64, {3})}), tt(DType::I64, {2, 3}));
  EXPECT_INFER_ERROR(inferError("Mod", {f32({2}), f32({2})}), "Mod of f32 operands needs fmod = 1");
  EXPECT_INFER_ERROR(inferError("Mod", {tt(DType::I32, {2}), tt(DType::I64, {2})}), "operand types differ");
}

TEST(ElementwiseShape, PowAndErf) {
  EXPECT_EQ(infer1("Pow", {f32({2, 1, 4}), f32({})}), f32({2, 1, 4}));
  EXPECT_EQ(infer1("Pow", {f32({2, 1, 4}), tt(DType::I64, {3, 1})}), f32({2, 3, 4}));
  EXPECT_INFER_ERROR(inferError("Pow", {tt(DType::I32, {2}), f32({})}), "base must be f32, got i32");
  EXPECT_EQ(infer1("Erf", {f32({1, 7})}), f32({1, 7}));
}

TEST(ElementwiseShape, ClipDropoutCast) {
  EXPECT_EQ(infer1("Clip", {f32({2, 3}), f32({}), f32({})}), f32({2, 3}));
  EXPECT_EQ(infer1("Clip", {f32({2, 3}), In(), f32({})}), f32({2, 3}));
  EXPECT_EQ(infer1("Clip", {f32({2, 3})}, makeAttrs({{"min", 0.0}, {"max", 6.0}})), f32({2, 3}));
  EXPECT_INFER_ERROR(inferError("Clip", {f32({2, 3}), f32({3})}), "min must be a scalar");
  auto dropout = infer("Dropout", {f32({2, 3})}, {}, 2);
  EXPECT_EQ(dropout[1], tt(DType::Bool, {2, 3}));
  EXPECT_INFER_ERROR(inferError("Dropout", {f32({2}), In(), In::constant(Tensor::fromVector<bool>({}, {true}))}),
                     "training_mode = true is not supported");
  EXPECT_EQ(infer1("Cast", {f32({2})}, makeAttrs({{"to", int64_t{7}}})), tt(DType::I64, {2}));
  EXPECT_EQ(infer1("Cast", {f32({2})}, makeAttrs({{"to", std::string("u8")}})), tt(DType::U8, {2}));
  EXPECT_INFER_ERROR(inferError("Cast", {f32({2})}, makeAttrs({{"to", int64_t{10}}})),
                     "attribute 'to' = 10 is an unsupported element type");
  EXPECT_INFER_ERROR(inferError("Sigmoid", {tt(DType::I32, {2})}), "input must be f32, got i32");
}

}  // namespace
}  // namespace vdla::ir::testing
