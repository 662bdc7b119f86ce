// Data movement, normalisation and reduction kernels against hand-computed
// values (numpy's results for the same calls).
#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

Tensor ramp(const Shape& shape) {
  Tensor t(DType::F32, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST(TransposeKernel, PermutationAndDefaultReverse) {
  Tensor x = ramp({2, 3, 4});
  Tensor y = run1("Transpose", {x}, DType::F32, {4, 2, 3}, makeAttrs({{"perm", Ints{2, 0, 1}}}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) ASSERT_EQ(y.data<float>()[(k * 2 + i) * 3 + j], (i * 3 + j) * 4 + k);
  Tensor r = run1("Transpose", {Tensor::fromVector<int64_t>({2, 2}, {1, 2, 3, 4})}, DType::I64, {2, 2});
  EXPECT_EQ(r.toVector<int64_t>(), (std::vector<int64_t>{1, 3, 2, 4}));
}

TEST(ConcatKernel, AlongMiddleAxis) {
  Tensor a = ramp({2, 1, 2}), b = ramp({2, 2, 2});
  Tensor y = run1("Concat", {a, b}, DType::F32, {2, 3, 2}, makeAttrs({{"axis", int64_t{-2}}}));
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 6, 7}));
}

TEST(PadKernel, ConstantReflectEdgeAndCrop) {
  Tensor x = Tensor::fromVector<float>({1, 3}, {1, 2, 3});
  Tensor pads = Tensor::fromVector<int64_t>({4}, {0, 2, 0, 1});
  EXPECT_EQ(run1("Pad", {x, pads, Tensor::fromVector<float>({}, {9})}, DType::F32, {1, 6}).toVector<float>(),
            (std::vector<float>{9, 9, 1, 2, 3, 9}));
  EXPECT_EQ(run1("Pad", {x, pads}, DType::F32, {1, 6}, makeAttrs({{"mode", std::string("reflect")}})).toVector<float>(),
            (std::vector<float>{3, 2, 1, 2, 3, 2}));
  EXPECT_EQ(run1("Pad", {x, pads}, DType::F32, {1, 6}, makeAttrs({{"mode", std::string("edge")}})).toVector<float>(),
            (std::vector<float>{1, 1, 1, 2, 3, 3}));
  // Opset < 11: pads and value as attributes; negative pads crop.
  EXPECT_EQ(
      run1("Pad", {x}, DType::F32, {1, 3}, makeAttrs({{"pads", Ints{0, -1, 0, 1}}, {"value", 5.0}})).toVector<float>(),
      (std::vector<float>{2, 3, 5}));
  // Opset 18 axes input.
  EXPECT_EQ(run1("Pad", {x, Tensor::fromVector<int64_t>({2}, {1, 0}), Tensor(), Tensor::fromVector<int64_t>({1}, {-1})},
                 DType::F32, {1, 4})
                .toVector<float>(),
            (std::vector<float>{0, 1, 2, 3}));
  EXPECT_THROW(run1("Pad", {x, pads}, DType::F32, {1, 6}, makeAttrs({{"mode", std::string("wrap")}})), KernelError);
}

TEST(PadKernel, TwoDimensionalReflect) {
  Tensor x = Tensor::fromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  // numpy.pad(x, ((1, 0), (0, 1)), 'reflect')
  Tensor y = run1("Pad", {x, Tensor::fromVector<int64_t>({4}, {1, 0, 0, 1})}, DType::F32, {4, 3},
                  makeAttrs({{"mode", std::string("reflect")}}));
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{3, 4, 3, 1, 2, 1, 3, 4, 3, 5, 6, 5}));
}

TEST(GatherKernel, AxesAndNegativeIndices) {
  Tensor x = ramp({3, 2});
  Tensor idx = Tensor::fromVector<int64_t>({2, 2}, {0, -1, 1, 2});
  EXPECT_EQ(run1("Gather", {x, idx}, DType::F32, {2, 2, 2}).toVector<float>(),
            (std::vector<float>{0, 1, 4, 5, 2, 3, 4, 5}));
  Tensor i32 = Tensor::fromVector<int32_t>({1}, {1});
  EXPECT_EQ(run1("Gather", {x, i32}, DType::F32, {3, 1}, makeAttrs({{"axis", int64_t{1}}})).toVector<float>(),
            (std::vector<float>{1, 3, 5}));
  Tensor shape = Tensor::fromVector<int64_t>({4}, {1, 64, 7, 7});
  EXPECT_EQ(run1("Gather", {shape, Tensor::fromVector<int64_t>({}, {0})}, DType::I64, {}).toVector<int64_t>(),
            (std::vector<int64_t>{1}));
  EXPECT_THROW(run1("Gather", {x, Tensor::fromVector<int64_t>({1}, {3})}, DType::F32, {1, 2}), KernelError);
}

TEST(ShapeKernel, StartAndEnd) {
  Tensor x(DType::F32, {1, 3, 5, 7});
  EXPECT_EQ(run1("Shape", {x}, DType::I64, {4}).toVector<int64_t>(), (std::vector<int64_t>{1, 3, 5, 7}));
  EXPECT_EQ(
      run1("Shape", {x}, DType::I64, {2}, makeAttrs({{"start", int64_t{1}}, {"end", int64_t{-1}}})).toVector<int64_t>(),
      (std::vector<int64_t>{3, 5}));
}

TEST(CopyKernels, ReshapeFlattenSqueezeDropout) {
  Tensor x = ramp({2, 3});
  EXPECT_EQ(run1("Reshape", {x, Tensor::fromVector<int64_t>({1}, {-1})}, DType::F32, {6}).toVector<float>(),
            x.toVector<float>());
  EXPECT_EQ(run1("Flatten", {x}, DType::F32, {2, 3}).shape(), (Shape{2, 3}));
  EXPECT_THROW(run1("Squeeze", {x}, DType::F32, {5}), KernelError);
  auto out =
      runKernel("Dropout", {x}, {{DType::F32, {2, 3}, Layout::RowMajor}, {DType::Bool, {2, 3}, Layout::RowMajor}});
  EXPECT_EQ(out[0].toVector<float>(), x.toVector<float>());
  for (int64_t i = 0; i < 6; ++i) EXPECT_EQ(out[1].getAsInt(i), 1);
}

TEST(BatchNormKernel, InferenceFormula) {
  Tensor x = Tensor::fromVector<float>({1, 2, 2}, {1, 2, 3, 4});
  Tensor scale = Tensor::fromVector<float>({2}, {1, 2}), bias = Tensor::fromVector<float>({2}, {0, 1});
  Tensor mean = Tensor::fromVector<float>({2}, {1, 3}), var = Tensor::fromVector<float>({2}, {4, 0.25f});
  Tensor y =
      run1("BatchNormalization", {x, scale, bias, mean, var}, DType::F32, {1, 2, 2}, makeAttrs({{"epsilon", 0.0}}));
  // channel 0: (x - 1) / 2; channel 1: (x - 3) / 0.5 * 2 + 1
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{0, 0.5f, 1, 5}));
}

TEST(LayerNormKernel, NormalisesTheTrailingDimensionsThenScalesAndShifts) {
  // Two rows of four; row 0 has mean 2.5 and variance 1.25.
  Tensor x = Tensor::fromVector<float>({2, 4}, {1, 2, 3, 4, 10, 10, 10, 10});
  Tensor scale = Tensor::fromVector<float>({4}, {1, 2, 1, 1}), bias = Tensor::fromVector<float>({4}, {0, 0, 0, 1});
  Tensor y = run1("LayerNormalization", {x, scale, bias}, DType::F32, {2, 4}, makeAttrs({{"epsilon", 0.0}}));
  const float s = 1.0f / std::sqrt(1.25f);
  EXPECT_NEAR(y.data<float>()[0], -1.5f * s, 1e-6);
  EXPECT_NEAR(y.data<float>()[1], -0.5f * s * 2, 1e-6);
  EXPECT_NEAR(y.data<float>()[3], 1.5f * s + 1, 1e-6);
  // A constant row normalises to zero (plus the shift), not NaN, with epsilon > 0.
  Tensor z = run1("LayerNormalization", {x, scale, bias}, DType::F32, {2, 4}, makeAttrs({{"epsilon", 1e-5}}));
  EXPECT_EQ(z.data<float>()[4], 0.0f);
  EXPECT_EQ(z.data<float>()[7], 1.0f);
  // axis 1 of [2, 2, 2] with a Scale of shape [1, 2] broadcasting over the first normalised dimension.
  Tensor x3 = Tensor::fromVector<float>({1, 2, 2}, {0, 2, 4, 6});
  Tensor s2 = Tensor::fromVector<float>({1, 2}, {1, -1});
  Tensor y3 =
      run1("LayerNormalization", {x3, s2}, DType::F32, {1, 2, 2}, makeAttrs({{"axis", int64_t{1}}, {"epsilon", 0.0}}));
  const float k = 1.0f / std::sqrt(5.0f);  // mean 3, variance 5
  EXPECT_NEAR(y3.data<float>()[0], -3 * k, 1e-6);
  EXPECT_NEAR(y3.data<float>()[1], 1 * k, 1e-6);  // (2 - 3) * -1
  EXPECT_NEAR(y3.data<float>()[2], 1 * k, 1e-6);
  EXPECT_NEAR(y3.data<float>()[3], -3 * k, 1e-6);
}

TEST(SoftmaxKernel, SingleAxisAndLegacyTwoD) {
  Tensor x = Tensor::fromVector<float>({2, 2}, {0, 0, 0, std::log(3.0f)});
  Tensor y = run1("Softmax", {x}, DType::F32, {2, 2});  // axis -1
  EXPECT_NEAR(y.data<float>()[0], 0.5, 1e-6);
  EXPECT_NEAR(y.data<float>()[2], 0.25, 1e-6);
  EXPECT_NEAR(y.data<float>()[3], 0.75, 1e-6);
  Tensor col = run1("Softmax", {x}, DType::F32, {2, 2}, makeAttrs({{"axis", int64_t{0}}}));
  EXPECT_NEAR(col.data<float>()[1], 0.25, 1e-6);
  // legacy_2d with axis 0: one row of all four elements (total 6).
  Tensor legacy =
      run1("Softmax", {x}, DType::F32, {2, 2}, makeAttrs({{"axis", int64_t{0}}, {"legacy_2d", int64_t{1}}}));
  EXPECT_NEAR(legacy.data<float>()[0], 1.0 / 6.0, 1e-6);
  EXPECT_NEAR(legacy.data<float>()[3], 0.5, 1e-6);
  // The two forms agree on the last axis (and legacy's default axis is 1).
  Tensor x3 = ramp({2, 3, 4});
  Tensor a = run1("Softmax", {x3}, DType::F32, {2, 3, 4}, makeAttrs({{"axis", int64_t{1}}}));
  Tensor b = run1("Softmax", {x3}, DType::F32, {2, 3, 4}, makeAttrs({{"legacy_2d", int64_t{1}}}));
  EXPECT_NE(a.toVector<float>(), b.toVector<float>());
  double sum = 0;
  for (int64_t i = 0; i < 12; ++i) sum += b.data<float>()[i];
  EXPECT_NEAR(sum, 1.0, 1e-5);
  Tensor l = run1("LogSoftmax", {x}, DType::F32, {2, 2});
  EXPECT_NEAR(l.data<float>()[3], std::log(0.75), 1e-6);
}

TEST(ReduceKernels, AxesKeepdimsAndAll) {
  Tensor x = ramp({2, 3, 2});
  EXPECT_EQ(run1("ReduceMean", {x}, DType::F32, {1, 3, 1}, makeAttrs({{"axes", Ints{0, 2}}})).toVector<float>(),
            (std::vector<float>{3.5f, 5.5f, 7.5f}));
  EXPECT_EQ(run1("ReduceMean", {x, Tensor::fromVector<int64_t>({1}, {-1})}, DType::F32, {2, 3},
                 makeAttrs({{"keepdims", int64_t{0}}}))
                .toVector<float>(),
            (std::vector<float>{0.5f, 2.5f, 4.5f, 6.5f, 8.5f, 10.5f}));
  EXPECT_EQ(run1("ReduceMean", {x}, DType::F32, {1, 1, 1}).toVector<float>(), (std::vector<float>{5.5f}));
  EXPECT_EQ(run1("ReduceSum", {x}, DType::F32, {2}, makeAttrs({{"axes", Ints{1, 2}}, {"keepdims", int64_t{0}}}))
                .toVector<float>(),
            (std::vector<float>{15, 51}));
  EXPECT_EQ(run1("ReduceMax", {x}, DType::F32, {2, 1, 2}, makeAttrs({{"axes", Ints{1}}})).toVector<float>(),
            (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(run1("ReduceMean", {x}, DType::F32, {2, 3, 2}, makeAttrs({{"noop_with_empty_axes", int64_t{1}}}))
                .toVector<float>(),
            x.toVector<float>());
}

TEST(RangeKernel, CountsFromStartByDelta) {
  auto i64 = [](int64_t v) { return Tensor::fromVector<int64_t>({}, {v}); };
  EXPECT_EQ(run1("Range", {i64(10), i64(3), i64(-3)}, DType::I64, {3}).toVector<int64_t>(),
            (std::vector<int64_t>{10, 7, 4}));
  const Tensor f = run1(
      "Range",
      {Tensor::fromVector<float>({}, {-1}), Tensor::fromVector<float>({}, {1}), Tensor::fromVector<float>({}, {0.5f})},
      DType::F32, {4});
  EXPECT_EQ(f.toVector<float>(), (std::vector<float>{-1, -0.5f, 0, 0.5f}));
  EXPECT_THROW(run1("Range", {i64(0), i64(3), i64(1)}, DType::I64, {2}), std::exception);  // wrong output size
}

TEST(ScatterNDKernel, ReplacesAddressedSlicesInOrder) {
  const Tensor data = Tensor::fromVector<float>({3, 2}, {1, 2, 3, 4, 5, 6});
  // Rows 2 and -3 (= 0) replaced; a repeated tuple: the last write wins.
  const Tensor rows = run1(
      "ScatterND",
      {data, Tensor::fromVector<int64_t>({3, 1}, {2, -3, 2}), Tensor::fromVector<float>({3, 2}, {7, 8, 9, 10, 11, 12})},
      DType::F32, {3, 2});
  EXPECT_EQ(rows.toVector<float>(), (std::vector<float>{9, 10, 3, 4, 11, 12}));
  const Tensor elems = run1(
      "ScatterND", {data, Tensor::fromVector<int64_t>({2, 2}, {0, 1, 1, 0}), Tensor::fromVector<float>({2}, {-1, -2})},
      DType::F32, {3, 2});
  EXPECT_EQ(elems.toVector<float>(), (std::vector<float>{1, -1, -2, 4, 5, 6}));
  EXPECT_THROW(
      run1("ScatterND", {data, Tensor::fromVector<int64_t>({1, 1}, {3}), Tensor::fromVector<float>({1, 2}, {0, 0})},
           DType::F32, {3, 2}),
      std::exception);
}

TEST(ConstantOfShapeKernel, FillsWithTheValueOrZeros) {
  EXPECT_EQ(run1("ConstantOfShape", {Tensor::fromVector<int64_t>({2}, {2, 3})}, DType::F32, {2, 3}).toVector<float>(),
            std::vector<float>(6, 0.0f));
  EXPECT_EQ(run1("ConstantOfShape", {Tensor::fromVector<int64_t>({1}, {3})}, DType::I64, {3},
                 makeAttrs({{"value", Tensor::fromVector<int64_t>({1}, {7})}}))
                .toVector<int64_t>(),
            (std::vector<int64_t>{7, 7, 7}));
}

TEST(SelectionKernels, EqualWhereExpand) {
  const Tensor a = Tensor::fromVector<int64_t>({2, 2}, {1, 2, 3, 4});
  const Tensor b = Tensor::fromVector<int64_t>({2}, {1, 4});
  const Tensor eq = run1("Equal", {a, b}, DType::Bool, {2, 2});
  EXPECT_EQ(eq.toVector<bool>(), (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(run1("Not", {eq}, DType::Bool, {2, 2}).toVector<bool>(), (std::vector<bool>{false, true, true, false}));
  const Tensor f =
      run1("Equal", {Tensor::fromVector<float>({2}, {0.0f, NAN}), Tensor::fromVector<float>({2}, {-0.0f, NAN})},
           DType::Bool, {2});
  EXPECT_EQ(f.toVector<bool>(), (std::vector<bool>{true, false}));
  // Where broadcasts condition [2,2], X [2] and Y [] together.
  const Tensor w = run1("Where", {eq, Tensor::fromVector<float>({2}, {10, 20}), Tensor::fromVector<float>({}, {-1})},
                        DType::F32, {2, 2});
  EXPECT_EQ(w.toVector<float>(), (std::vector<float>{10, -1, -1, 20}));
  const Tensor e =
      run1("Expand", {Tensor::fromVector<float>({2, 1}, {1, 2}), Tensor::fromVector<int64_t>({3}, {2, 2, 3})},
           DType::F32, {2, 2, 3});
  EXPECT_EQ(e.toVector<float>(), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

}  // namespace
}  // namespace vdla::rt::testing
