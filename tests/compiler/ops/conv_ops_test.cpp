// Type inference of Conv, ConvInteger and QLinearConv: output shapes for every
// padding mode, and the errors for inconsistent inputs and attributes.
#include "op_test_util.h"

namespace vdla::ir::testing {
namespace {

TEST(ConvShape, ExplicitAsymmetricPadsStridesDilations) {
  // H: (10 + 1 + 2 - ((3-1)*2+1)) / 2 + 1 = 5; W: (9 + 0 + 0 - 3) / 1 + 1 = 7.
  EXPECT_EQ(infer1("Conv", {f32({2, 4, 10, 9}), f32({8, 4, 3, 3}), f32({8})},
                   makeAttrs({{"pads", Ints{1, 0, 2, 0}}, {"strides", Ints{2, 1}}, {"dilations", Ints{2, 1}}})),
            f32({2, 8, 5, 7}));
  // ResNet stem: 224 -> 112.
  EXPECT_EQ(infer1("Conv", {f32({1, 3, 224, 224}), f32({64, 3, 7, 7})},
                   makeAttrs({{"pads", Ints{3, 3, 3, 3}}, {"strides", Ints{2, 2}}, {"kernel_shape", Ints{7, 7}}})),
            f32({1, 64, 112, 112}));
}

TEST(ConvShape, AutoPad) {
  for (const char* mode : {"SAME_UPPER", "SAME_LOWER"})
    EXPECT_EQ(infer1("Conv", {f32({1, 2, 7, 8}), f32({4, 2, 3, 2})},
                     makeAttrs({{"auto_pad", std::string(mode)}, {"strides", Ints{2, 3}}})),
              f32({1, 4, 4, 3}));
  EXPECT_EQ(infer1("Conv", {f32({1, 2, 7, 8}), f32({4, 2, 3, 2})},
                   makeAttrs({{"auto_pad", std::string("VALID")}, {"strides", Ints{2, 3}}})),
            f32({1, 4, 3, 3}));
  EXPECT_INFER_ERROR(
      inferError("Conv", {f32({1, 2, 7, 8}), f32({4, 2, 3, 2})}, makeAttrs({{"auto_pad", std::string("SAME")}})),
      "attribute 'auto_pad' has unsupported value \"SAME\"");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 2, 7, 8}), f32({4, 2, 3, 2})},
                                makeAttrs({{"auto_pad", std::string("SAME_UPPER")}, {"pads", Ints{1, 1, 1, 1}}})),
                     "cannot be combined with auto_pad");
}

TEST(ConvShape, GroupsAndDepthwise) {
  EXPECT_EQ(infer1("Conv", {f32({1, 32, 112, 112}), f32({32, 1, 3, 3})},
                   makeAttrs({{"group", int64_t{32}}, {"pads", Ints{1, 1, 1, 1}}, {"strides", Ints{2, 2}}})),
            f32({1, 32, 56, 56}));
  EXPECT_EQ(infer1("Conv", {f32({1, 8, 5, 5}), f32({6, 4, 1, 1})}, makeAttrs({{"group", int64_t{2}}})),
            f32({1, 6, 5, 5}));
}

TEST(ConvShape, OneAndThreeSpatialDimensions) {
  EXPECT_EQ(infer1("Conv", {f32({1, 2, 9}), f32({3, 2, 3})}, makeAttrs({{"strides", Ints{2}}})), f32({1, 3, 4}));
  EXPECT_EQ(infer1("Conv", {f32({1, 2, 4, 5, 6}), f32({3, 2, 3, 3, 3})}), f32({1, 3, 2, 3, 4}));
}

TEST(ConvShape, Errors) {
  // The message names the node, then the reason.
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 4, 1, 1})}, makeAttrs({{"group", int64_t{3}}})),
                     "node 'n0' (Conv): input channels 8 do not match W's 4 channels per group x group 3");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 2, 1, 1})}, makeAttrs({{"group", int64_t{4}}})),
                     "output channels 6 are not a positive multiple of group 4");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 1, 1})}, makeAttrs({{"group", int64_t{0}}})),
                     "attribute 'group' must be >= 1");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8}), f32({6, 8})}), "input X must have rank 3 to 5");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3})}), "must have the rank of X");
  EXPECT_INFER_ERROR(
      inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})}, makeAttrs({{"kernel_shape", Ints{5, 5}}})),
      "attribute 'kernel_shape' [5,5] does not match the weights' spatial shape [3,3]");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})}, makeAttrs({{"pads", Ints{1, 1}}})),
                     "attribute 'pads' has 2 values, expected 4");
  EXPECT_INFER_ERROR(
      inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})}, makeAttrs({{"pads", Ints{-1, 0, 0, 0}}})),
      "attribute 'pads' must be non-negative");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})}, makeAttrs({{"strides", Ints{0, 1}}})),
                     "attribute 'strides' must hold values >= 1");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 2, 2}), f32({6, 8, 3, 3})}),
                     "is larger than the padded input extent 2");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3}), f32({8})}),
                     "bias B must have shape [6], got [8]");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), tt(DType::I8, {6, 8, 3, 3})}),
                     "weights W must be f32, got i8");
  EXPECT_INFER_ERROR(
      inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})}, makeAttrs({{"activation", std::string("Gelu")}})),
      "attribute 'activation' has unsupported value \"Gelu\"");
}

TEST(ConvShape, FusedActivationAttributes) {
  EXPECT_EQ(infer1("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})},
                   makeAttrs({{"activation", std::string("Clip")}, {"activation_min", 0.0}, {"activation_max", 6.0}})),
            f32({1, 6, 3, 3}));
  EXPECT_INFER_ERROR(
      inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})},
                 makeAttrs({{"activation", std::string("Clip")}, {"activation_min", 6.0}, {"activation_max", 0.0}})),
      "activation_min <= activation_max");
  EXPECT_INFER_ERROR(inferError("Conv", {f32({1, 8, 5, 5}), f32({6, 8, 3, 3})},
                                makeAttrs({{"activation", std::string("Relu")}, {"activation_max", 6.0}})),
                     "need activation=\"Clip\"");
}

TEST(QLinearConvShape, TypesAndPerChannelParameters) {
  const TensorType scalar_f = f32({}), scalar_u8 = tt(DType::U8, {}), scalar_i8 = tt(DType::I8, {});
  std::vector<In> in = {tt(DType::U8, {1, 8, 5, 5}), scalar_f, scalar_u8, tt(DType::I8, {6, 8, 3, 3}), f32({6}),
                        tt(DType::I8, {6}),          scalar_f, scalar_u8, tt(DType::I32, {6})};
  EXPECT_EQ(infer1("QLinearConv", in, makeAttrs({{"pads", Ints{1, 1, 1, 1}}})), tt(DType::U8, {1, 6, 5, 5}));
  in[7] = scalar_i8;  // the output type follows y_zero_point
  EXPECT_EQ(infer1("QLinearConv", in), tt(DType::I8, {1, 6, 3, 3}));
  in[4] = f32({5});
  EXPECT_INFER_ERROR(inferError("QLinearConv", in),
                     "w_scale must be a scalar or a 1-D tensor of 6 elements, got shape [5]");
  in[4] = f32({6});
  in[8] = f32({6});
  EXPECT_INFER_ERROR(inferError("QLinearConv", in), "bias B must be i32, got f32");
  in[8] = tt(DType::I32, {6});
  in[2] = scalar_i8;
  EXPECT_INFER_ERROR(inferError("QLinearConv", in), "x_zero_point must be u8, got i8");
}

TEST(ConvIntegerShape, OutputsInt32) {
  EXPECT_EQ(infer1("ConvInteger", {tt(DType::U8, {1, 2, 4, 4}), tt(DType::U8, {3, 2, 3, 3}), tt(DType::U8, {})}),
            tt(DType::I32, {1, 3, 2, 2}));
}

}  // namespace
}  // namespace vdla::ir::testing
