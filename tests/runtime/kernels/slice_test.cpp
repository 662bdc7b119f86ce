// Slice and Split kernels against hand-computed values (numpy's results for
// the same indexing).
#include <limits>

#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

Tensor ramp(const Shape& shape) {
  Tensor t(DType::F32, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

Tensor ints(std::vector<int64_t> v) { return Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); }

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(SliceKernel, ClampedEnd) {
  // x[:, 1:] of a 3x4 ramp.
  Tensor y = run1("Slice", {ramp({3, 4}), ints({1}), ints({kMax}), ints({1})}, DType::F32, {3, 3});
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{1, 2, 3, 5, 6, 7, 9, 10, 11}));
  // x[-2:-1] on axis 0 (axes omitted).
  y = run1("Slice", {ramp({3, 4}), ints({-2}), ints({-1})}, DType::F32, {1, 4});
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{4, 5, 6, 7}));
}

TEST(SliceKernel, NegativeAndStridedSteps) {
  // x[::-1] along axis 0.
  Tensor y = run1("Slice", {ramp({3, 4}), ints({-1}), ints({kMin}), ints({0}), ints({-1})}, DType::F32, {3, 4});
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3}));
  // x[0:3:2, 3:0:-2] = rows 0, 2 and columns 3, 1.
  y = run1("Slice", {ramp({3, 4}), ints({0, 3}), ints({3, 0}), ints({0, 1}), ints({2, -2})}, DType::F32, {2, 2});
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{3, 1, 11, 9}));
  // A start past the end with a negative step is clamped to the last element.
  y = run1("Slice", {ramp({5}), ints({100}), ints({0}), ints({0}), ints({-3})}, DType::F32, {2});
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{4, 1}));
}

TEST(SliceKernel, IntegerElementsAndEmptyResult) {
  Tensor x = Tensor::fromVector<int64_t>({4}, {10, 20, 30, 40});
  EXPECT_EQ(run1("Slice", {x, ints({1}), ints({3})}, DType::I64, {2}).toVector<int64_t>(),
            (std::vector<int64_t>{20, 30}));
  EXPECT_EQ(run1("Slice", {x, ints({3}), ints({1})}, DType::I64, {0}).numElements(), 0);
  EXPECT_THROW(run1("Slice", {x, ints({0}), ints({1}), ints({0}), ints({0})}, DType::I64, {1}), KernelError);
  EXPECT_THROW(run1("Slice", {x, ints({0}), ints({2})}, DType::I64, {3}), KernelError);  // wrong output shape
}

TEST(SplitKernel, ExplicitSizesAlongInnerAxis) {
  std::vector<Tensor> parts =
      runKernel("Split", {ramp({2, 6}), ints({1, 2, 3})},
                {TensorType{DType::F32, {2, 1}, Layout::RowMajor}, TensorType{DType::F32, {2, 2}, Layout::RowMajor},
                 TensorType{DType::F32, {2, 3}, Layout::RowMajor}},
                makeAttrs({{"axis", int64_t{1}}}));
  EXPECT_EQ(parts[0].toVector<float>(), (std::vector<float>{0, 6}));
  EXPECT_EQ(parts[1].toVector<float>(), (std::vector<float>{1, 2, 7, 8}));
  EXPECT_EQ(parts[2].toVector<float>(), (std::vector<float>{3, 4, 5, 9, 10, 11}));
}

TEST(SplitKernel, EqualPartsAlongOuterAxis) {
  std::vector<Tensor> parts =
      runKernel("Split", {ramp({4, 2})},
                {TensorType{DType::F32, {2, 2}, Layout::RowMajor}, TensorType{DType::F32, {2, 2}, Layout::RowMajor}});
  EXPECT_EQ(parts[0].toVector<float>(), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(parts[1].toVector<float>(), (std::vector<float>{4, 5, 6, 7}));
  EXPECT_THROW(runKernel("Split", {ramp({4, 2})}, {TensorType{DType::F32, {2, 2}, Layout::RowMajor}}), KernelError);
}

}  // namespace
}  // namespace vdla::rt::testing
