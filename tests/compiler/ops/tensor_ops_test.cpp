// Type inference of the data-movement operators, normalisations and reductions.
#include "op_test_util.h"

namespace vdla::ir::testing {
namespace {

TEST(ReshapeShape, ZeroMinusOneAndAllowzero) {
  EXPECT_EQ(infer1("Reshape", {f32({2, 3, 4}), In::ints({0, -1})}), f32({2, 12}));
  EXPECT_EQ(infer1("Reshape", {f32({2, 3, 4}), In::ints({-1, 2, 2})}), f32({6, 2, 2}));
  EXPECT_EQ(infer1("Reshape", {f32({0, 3}), In::ints({3, 0})}, makeAttrs({{"allowzero", int64_t{1}}})), f32({3, 0}));
  EXPECT_INFER_ERROR(inferError("Reshape", {f32({2, 3}), In::ints({4, -1})}), "cannot reshape [2,3] to [4,-1]");
  EXPECT_INFER_ERROR(inferError("Reshape", {f32({2, 3}), In::ints({-1, -1})}), "more than one -1");
  EXPECT_INFER_ERROR(inferError("Reshape", {f32({2, 3}), tt(DType::I64, {2})}), "must be a constant");
}

TEST(FlattenConcatTransposeShape, Basics) {
  EXPECT_EQ(infer1("Flatten", {f32({2, 3, 4, 5})}), f32({2, 60}));
  EXPECT_EQ(infer1("Flatten", {f32({2, 3, 4, 5})}, makeAttrs({{"axis", int64_t{0}}})), f32({1, 120}));
  EXPECT_EQ(infer1("Flatten", {f32({2, 3, 4, 5})}, makeAttrs({{"axis", int64_t{-1}}})), f32({24, 5}));
  EXPECT_EQ(infer1("Concat", {f32({1, 2, 3}), f32({1, 5, 3})}, makeAttrs({{"axis", int64_t{1}}})), f32({1, 7, 3}));
  EXPECT_INFER_ERROR(inferError("Concat", {f32({1, 2, 3}), f32({1, 5, 4})}, makeAttrs({{"axis", int64_t{1}}})),
                     "input 1 [1,5,4] does not match input 0 [1,2,3] outside axis 1");
  EXPECT_EQ(infer1("Transpose", {f32({2, 3, 4})}), f32({4, 3, 2}));
  EXPECT_EQ(infer1("Transpose", {f32({2, 3, 4})}, makeAttrs({{"perm", Ints{0, 2, 1}}})), f32({2, 4, 3}));
  EXPECT_INFER_ERROR(inferError("Transpose", {f32({2, 3, 4})}, makeAttrs({{"perm", Ints{0, 0, 1}}})),
                     "attribute 'perm' [0,0,1] is not a permutation");
}

TEST(PadShape, AttributeInputAndModes) {
  EXPECT_EQ(infer1("Pad", {f32({1, 3, 4, 4})}, makeAttrs({{"pads", Ints{0, 0, 1, 2, 0, 0, 3, 4}}})),
            f32({1, 3, 8, 10}));
  EXPECT_EQ(infer1("Pad", {f32({1, 3, 4, 4}), In::ints({0, 0, 1, 1, 0, 0, -1, 1})},
                   makeAttrs({{"mode", std::string("reflect")}})),
            f32({1, 3, 4, 6}));
  EXPECT_EQ(infer1("Pad", {f32({2, 4}), In::ints({1, 1}), In(), In::ints({-1})}), f32({2, 6}));
  EXPECT_INFER_ERROR(
      inferError("Pad", {f32({2, 4}), In::ints({1, 1, 1, 1})}, makeAttrs({{"mode", std::string("wrap")}})),
      "attribute 'mode' has unsupported value \"wrap\"");
  EXPECT_INFER_ERROR(inferError("Pad", {f32({2, 4}), In::ints({1, 1})}), "'pads' has 2 values, expected 4");
}

TEST(SqueezeUnsqueezeShape, AttributeAndInputAxes) {
  EXPECT_EQ(infer1("Squeeze", {f32({1, 3, 1, 2})}), f32({3, 2}));
  EXPECT_EQ(infer1("Squeeze", {f32({1, 3, 1, 2})}, makeAttrs({{"axes", Ints{-2}}})), f32({1, 3, 2}));
  EXPECT_EQ(infer1("Squeeze", {f32({1, 3, 1, 2}), In::ints({0})}), f32({3, 1, 2}));
  EXPECT_INFER_ERROR(inferError("Squeeze", {f32({1, 3})}, makeAttrs({{"axes", Ints{1}}})), "its size is not 1");
  EXPECT_EQ(infer1("Unsqueeze", {f32({3, 2})}, makeAttrs({{"axes", Ints{0, 3}}})), f32({1, 3, 2, 1}));
  EXPECT_EQ(infer1("Unsqueeze", {f32({3}), In::ints({-1})}), f32({3, 1}));
  EXPECT_INFER_ERROR(inferError("Unsqueeze", {f32({3})}), "'axes' is missing or empty");
}

TEST(RangeShape, LengthFromTheConstantOperands) {
  auto i64 = [](int64_t v) { return In::constant(Tensor::fromVector<int64_t>({}, {v})); };
  auto f = [](float v) { return In::constant(Tensor::fromVector<float>({}, {v})); };
  EXPECT_EQ(infer1("Range", {i64(0), i64(7), i64(3)}), tt(DType::I64, {3}));    // 0 3 6
  EXPECT_EQ(infer1("Range", {i64(10), i64(4), i64(-2)}), tt(DType::I64, {3}));  // 10 8 6
  EXPECT_EQ(infer1("Range", {i64(5), i64(5), i64(1)}), tt(DType::I64, {0}));
  EXPECT_EQ(infer1("Range", {i64(5), i64(1), i64(1)}), tt(DType::I64, {0}));
  EXPECT_EQ(infer1("Range", {f(1), f(2), f(0.25f)}), f32({4}));
  EXPECT_INFER_ERROR(inferError("Range", {i64(0), i64(4), i64(0)}), "nonzero delta");
  EXPECT_INFER_ERROR(inferError("Range", {i64(0), tt(DType::I64, {}), i64(1)}), "limit must be a constant");
  EXPECT_INFER_ERROR(inferError("Range", {i64(0), f(4), i64(1)}), "limit must be i64 like start");
}

TEST(ScatterNDShape, DataShapeAndCheckedUpdates) {
  EXPECT_EQ(infer1("ScatterND", {f32({4, 5, 6}), tt(DType::I64, {2, 3, 2}), f32({2, 3, 6})}), f32({4, 5, 6}));
  EXPECT_INFER_ERROR(inferError("ScatterND", {f32({4, 5}), tt(DType::I64, {2, 1}), f32({2, 4})}),
                     "updates must have shape [2,5], got [2,4]");
  EXPECT_INFER_ERROR(inferError("ScatterND", {f32({4}), tt(DType::I64, {2, 2}), f32({2})}), "must be in [1, rank");
  EXPECT_INFER_ERROR(inferError("ScatterND", {f32({4}), tt(DType::I64, {1, 1}), f32({1})},
                                makeAttrs({{"reduction", std::string("add")}})),
                     "reduction 'add' is not supported");
}

TEST(ConstantOfShapeShape, FromTheConstantShapeAndTheValue) {
  EXPECT_EQ(infer1("ConstantOfShape", {In::ints({2, 3})}), f32({2, 3}));
  EXPECT_EQ(infer1("ConstantOfShape", {In::ints({4})}, makeAttrs({{"value", Tensor::fromVector<int64_t>({1}, {1})}})),
            tt(DType::I64, {4}));
  EXPECT_INFER_ERROR(inferError("ConstantOfShape", {tt(DType::I64, {2})}), "input shape must be a constant");
  EXPECT_INFER_ERROR(inferError("ConstantOfShape", {In::ints({2, -1})}), "negative dimension");
}

TEST(SelectionShape, EqualWhereExpand) {
  EXPECT_EQ(infer1("Equal", {tt(DType::I64, {2, 1}), tt(DType::I64, {3})}), tt(DType::Bool, {2, 3}));
  EXPECT_INFER_ERROR(inferError("Equal", {tt(DType::I64, {2}), f32({2})}), "operand types differ");
  EXPECT_EQ(infer1("Not", {tt(DType::Bool, {2, 3})}), tt(DType::Bool, {2, 3}));
  EXPECT_INFER_ERROR(inferError("Not", {f32({2})}), "input must be bool");
  EXPECT_EQ(infer1("Where", {tt(DType::Bool, {2, 1}), f32({3}), f32({})}), f32({2, 3}));
  EXPECT_INFER_ERROR(inferError("Where", {f32({2}), f32({2}), f32({2})}), "condition must be bool");
  EXPECT_EQ(infer1("Expand", {f32({3, 1}), In::ints({2, 3, 4})}), f32({2, 3, 4}));
  EXPECT_INFER_ERROR(inferError("Expand", {f32({3}), tt(DType::I64, {2})}), "shape must be a constant");
}

TEST(ShapeGatherShape, Basics) {
  EXPECT_EQ(infer1("Shape", {f32({1, 3, 5})}), tt(DType::I64, {3}));
  EXPECT_EQ(infer1("Shape", {f32({1, 3, 5})}, makeAttrs({{"start", int64_t{-2}}})), tt(DType::I64, {2}));
  EXPECT_EQ(infer1("Gather", {f32({5, 6}), tt(DType::I64, {2, 3})}, makeAttrs({{"axis", int64_t{1}}})), f32({5, 2, 3}));
  EXPECT_EQ(infer1("Gather", {tt(DType::I64, {4}), In::constant(Tensor::fromVector<int64_t>({}, {0}))}),
            tt(DType::I64, {}));
  EXPECT_INFER_ERROR(inferError("Gather", {f32({5, 6}), In::ints({7})}),
                     "index 7 is out of range for axis 0 of size 5");
}

TEST(NormalizationShape, BatchNormAndSoftmax) {
  EXPECT_EQ(infer1("BatchNormalization", {f32({1, 4, 2, 2}), f32({4}), f32({4}), f32({4}), f32({4})}),
            f32({1, 4, 2, 2}));
  EXPECT_INFER_ERROR(inferError("BatchNormalization", {f32({1, 4, 2, 2}), f32({4}), f32({3}), f32({4}), f32({4})}),
                     "B must have shape [4] (one value per channel), got [3]");
  EXPECT_INFER_ERROR(inferError("BatchNormalization", {f32({1, 4, 2, 2}), f32({4}), f32({4}), f32({4}), f32({4})},
                                makeAttrs({{"training_mode", int64_t{1}}})),
                     "attribute 'training_mode' = 1 is not supported");
  EXPECT_EQ(infer1("Softmax", {f32({2, 10})}), f32({2, 10}));
  EXPECT_INFER_ERROR(inferError("Softmax", {f32({2, 10})}, makeAttrs({{"axis", int64_t{2}}})),
                     "axis 2 is out of range");
  EXPECT_EQ(infer1("Softmax", {f32({2, 10})}, makeAttrs({{"axis", int64_t{2}}, {"legacy_2d", int64_t{1}}})),
            f32({2, 10}));
}

TEST(NormalizationShape, LayerNorm) {
  EXPECT_EQ(infer1("LayerNormalization", {f32({1, 49, 96}), f32({96}), f32({96})}), f32({1, 49, 96}));
  EXPECT_EQ(infer1("LayerNormalization", {f32({2, 3, 4}), f32({1, 4})}, makeAttrs({{"axis", int64_t{1}}})),
            f32({2, 3, 4}));
  EXPECT_INFER_ERROR(inferError("LayerNormalization", {f32({1, 49, 96}), f32({95})}),
                     "Scale of shape [95] does not broadcast to the normalised dimensions [96]");
  EXPECT_INFER_ERROR(inferError("LayerNormalization", {f32({1, 49, 96}), f32({96}), f32({49, 96})}),
                     "B of shape [49,96] does not broadcast");
  EXPECT_INFER_ERROR(inferError("LayerNormalization", {f32({1, 49, 96}), f32({96})}, makeAttrs({{"axis", int64_t{3}}})),
                     "out of range");
}

TEST(ReduceShape, AxesKeepdims) {
  EXPECT_EQ(infer1("ReduceMean", {f32({1, 64, 7, 7})}, makeAttrs({{"axes", Ints{2, 3}}})), f32({1, 64, 1, 1}));
  EXPECT_EQ(infer1("ReduceMean", {f32({1, 64, 7, 7})}, makeAttrs({{"axes", Ints{-1, -2}}, {"keepdims", int64_t{0}}})),
            f32({1, 64}));
  EXPECT_EQ(infer1("ReduceMean", {f32({1, 64, 7, 7}), In::ints({1})}), f32({1, 1, 7, 7}));
  EXPECT_EQ(infer1("ReduceSum", {f32({2, 3})}, makeAttrs({{"keepdims", int64_t{0}}})), f32({}));
  EXPECT_INFER_ERROR(inferError("ReduceMean", {f32({2, 3})}, makeAttrs({{"axes", Ints{1, -1}}})), "repeats an axis");
}

}  // namespace
}  // namespace vdla::ir::testing
