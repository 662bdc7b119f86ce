// Type inference of Slice and Split: clamping, negative indices and steps,
// equal and explicit splits, and the errors for unsupported forms.
#include <limits>

#include "op_test_util.h"

namespace vdla::ir::testing {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(SliceShape, ClampedAndNegativeIndices) {
  // x[:, 1:] as exporters write it (end INT64_MAX).
  EXPECT_EQ(infer1("Slice", {f32({3, 4}), In::ints({1}), In::ints({kMax}), In::ints({1})}), f32({3, 3}));
  // x[-2:] on axis 0 without axes.
  EXPECT_EQ(infer1("Slice", {f32({3, 4}), In::ints({-2}), In::ints({kMax})}), f32({2, 4}));
  // Ends below the start and starts past the end give empty axes.
  EXPECT_EQ(infer1("Slice", {f32({3, 4}), In::ints({0}), In::ints({-100}), In::ints({0})}), f32({0, 4}));
  EXPECT_EQ(infer1("Slice", {f32({3, 4}), In::ints({5}), In::ints({10}), In::ints({-1})}), f32({3, 0}));
}

TEST(SliceShape, Steps) {
  // x[::-1] (start -1, end INT64_MIN, step -1) keeps every element.
  EXPECT_EQ(infer1("Slice", {f32({3, 4}), In::ints({-1}), In::ints({kMin}), In::ints({0}), In::ints({-1})}),
            f32({3, 4}));
  // Rows 0 and 2 (step 2), columns 3 and 1 (step -2).
  EXPECT_EQ(infer1("Slice", {f32({3, 4}), In::ints({0, 3}), In::ints({3, 0}), In::ints({0, 1}), In::ints({2, -2})}),
            f32({2, 2}));
  // Seven elements with step 3: indices 0, 3, 6.
  EXPECT_EQ(infer1("Slice", {f32({7}), In::ints({0}), In::ints({7}), In::ints({0}), In::ints({3})}), f32({3}));
}

TEST(SliceShape, Errors) {
  EXPECT_INFER_ERROR(inferError("Slice", {f32({3, 4}), In::ints({0}), In::ints({1}), In::ints({0}), In::ints({0})}),
                     "has a zero step");
  EXPECT_INFER_ERROR(inferError("Slice", {f32({3, 4}), In::ints({0, 0}), In::ints({1, 1}), In::ints({1, -1})}),
                     "repeats an axis");
  EXPECT_INFER_ERROR(inferError("Slice", {f32({3, 4}), tt(DType::I64, {1}), In::ints({1})}), "must be a constant");
  EXPECT_INFER_ERROR(inferError("Slice", {f32({3, 4}), In::ints({0}), In::ints({1}), In::ints({2})}),
                     "axis 2 is out of range");
}

TEST(SplitShape, ExplicitEqualAndNumOutputs) {
  const AttributeMap axis1 = makeAttrs({{"axis", int64_t{1}}});
  auto types = infer("Split", {f32({2, 6}), In::ints({1, 2, 3})}, axis1, 3);
  EXPECT_EQ(types, (std::vector<TensorType>{f32({2, 1}), f32({2, 2}), f32({2, 3})}));
  types = infer("Split", {f32({2, 6})}, makeAttrs({{"axis", int64_t{-1}}}), 2);
  EXPECT_EQ(types, (std::vector<TensorType>{f32({2, 3}), f32({2, 3})}));
  // Opset 18: seven into three parts of ceil(7/3) = 3, the last one smaller.
  types = infer("Split", {f32({7})}, makeAttrs({{"num_outputs", int64_t{3}}}), 3);
  EXPECT_EQ(types, (std::vector<TensorType>{f32({3}), f32({3}), f32({1})}));
}

TEST(SplitShape, Errors) {
  const AttributeMap axis1 = makeAttrs({{"axis", int64_t{1}}});
  EXPECT_INFER_ERROR(inferError("Split", {f32({2, 6}), In::ints({1, 2})}, axis1, 2), "sums to 3, axis 1 has 6");
  EXPECT_INFER_ERROR(inferError("Split", {f32({2, 6}), In::ints({1, 5})}, axis1, 3), "has 2 sizes for 3 outputs");
  EXPECT_INFER_ERROR(inferError("Split", {f32({2, 5})}, axis1, 2), "does not split into 2 equal parts");
}

}  // namespace
}  // namespace vdla::ir::testing
