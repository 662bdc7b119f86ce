// Element-wise kernels: broadcasting against an index computation written out
// per element, activations, Clip's two forms and Cast.
#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

// Offset into `in` of output element `flat` under numpy broadcasting.
int64_t sourceIndex(int64_t flat, const Shape& out, const Shape& in) {
  std::vector<int64_t> coord(out.size());
  for (size_t d = out.size(); d-- > 0;) {
    coord[d] = flat % out[d];
    flat /= out[d];
  }
  int64_t index = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    const int64_t c = coord[d + out.size() - in.size()];
    index = index * in[d] + (in[d] == 1 ? 0 : c);
  }
  return index;
}

TEST(BinaryKernels, BroadcastLikeNumpy) {
  std::mt19937 rng(9);
  struct Case {
    Shape a, b, y;
  };
  for (const Case& c :
       {Case{{2, 3, 4}, {2, 3, 4}, {2, 3, 4}}, Case{{2, 3, 4}, {4}, {2, 3, 4}}, Case{{2, 1, 4}, {3, 1}, {2, 3, 4}},
        Case{{}, {3, 2}, {3, 2}}, Case{{1, 5}, {4, 1}, {4, 5}}, Case{{2, 1, 3, 1}, {1, 4, 1, 5}, {2, 4, 3, 5}}}) {
    Tensor a = randomF32(c.a, rng, 0.5f, 2.0f), b = randomF32(c.b, rng, 0.5f, 2.0f);
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
      SCOPED_TRACE(std::string(op) + " " + shapeToString(c.a) + " " + shapeToString(c.b));
      Tensor y = run1(op, {a, b}, DType::F32, c.y);
      for (int64_t i = 0; i < y.numElements(); ++i) {
        const float p = a.data<float>()[sourceIndex(i, c.y, c.a)], q = b.data<float>()[sourceIndex(i, c.y, c.b)];
        const float want = op[0] == 'A' ? p + q : op[0] == 'S' ? p - q : op[0] == 'M' ? p * q : p / q;
        ASSERT_EQ(y.data<float>()[i], want) << i;
      }
    }
  }
}

TEST(BinaryKernels, IntegerOperandsAndFusedRelu) {
  Tensor a = Tensor::fromVector<int64_t>({3}, {7, -7, 9});
  Tensor b = Tensor::fromVector<int64_t>({1}, {2});
  EXPECT_EQ(run1("Div", {a, b}, DType::I64, {3}).toVector<int64_t>(), (std::vector<int64_t>{3, -3, 4}));
  EXPECT_EQ(run1("Mul", {a, b}, DType::I64, {3}).toVector<int64_t>(), (std::vector<int64_t>{14, -14, 18}));
  EXPECT_THROW(run1("Div", {a, Tensor::fromVector<int64_t>({1}, {0})}, DType::I64, {3}), KernelError);
  Tensor u = Tensor::fromVector<uint8_t>({2}, {250, 3});
  EXPECT_EQ(run1("Add", {u, Tensor::fromVector<uint8_t>({}, {10})}, DType::U8, {2}).toVector<uint8_t>(),
            (std::vector<uint8_t>{4, 13}));  // wraps like numpy
  Tensor x = Tensor::fromVector<float>({3}, {-2, 0.5f, 3});
  Tensor y = Tensor::fromVector<float>({3}, {1, -1, 1});
  EXPECT_EQ(run1("Add", {x, y}, DType::F32, {3}, makeAttrs({{"activation", std::string("Relu")}})).toVector<float>(),
            (std::vector<float>{0, 0, 4}));
}

TEST(BinaryKernels, PowWithFloatAndIntegerExponents) {
  Tensor x = Tensor::fromVector<float>({2, 2}, {2, 3, 0.5f, 4});
  EXPECT_EQ(run1("Pow", {x, Tensor::fromVector<float>({}, {2.0f})}, DType::F32, {2, 2}).toVector<float>(),
            (std::vector<float>{4, 9, 0.25f, 16}));
  EXPECT_EQ(run1("Pow", {x, Tensor::fromVector<int64_t>({2}, {3, 0})}, DType::F32, {2, 2}).toVector<float>(),
            (std::vector<float>{8, 1, 0.125f, 1}));
  const Tensor r = run1("Pow", {x, Tensor::fromVector<float>({2, 1}, {0.5f, -1.0f})}, DType::F32, {2, 2});
  EXPECT_FLOAT_EQ(r.data<float>()[0], std::sqrt(2.0f));
  EXPECT_FLOAT_EQ(r.data<float>()[3], 0.25f);
}

// Mod: the divisor's sign by default (as Python's %), the dividend's with
// fmod = 1 (as C's % and fmod), broadcast.
TEST(BinaryKernels, ModTakesTheSignOfDivisorOrDividend) {
  const Tensor a = Tensor::fromVector<int64_t>({6}, {7, -7, 7, -7, 0, 9});
  const Tensor b = Tensor::fromVector<int64_t>({6}, {3, 3, -3, -3, 5, 9});
  EXPECT_EQ(run1("Mod", {a, b}, DType::I64, {6}).toVector<int64_t>(), (std::vector<int64_t>{1, 2, -2, -1, 0, 0}));
  rt::AttributeMap c;
  c.set("fmod", int64_t{1});
  EXPECT_EQ(run1("Mod", {a, b}, DType::I64, {6}, c).toVector<int64_t>(), (std::vector<int64_t>{1, -1, 1, -1, 0, 0}));
  const Tensor i8 = run1(
      "Mod", {Tensor::fromVector<int8_t>({3}, {-128, 127, -5}), Tensor::fromVector<int8_t>({}, {-1})}, DType::I8, {3});
  EXPECT_EQ(i8.toVector<int8_t>(), (std::vector<int8_t>{0, 0, 0}));
  const Tensor f =
      run1("Mod", {Tensor::fromVector<float>({3}, {5.5f, -5.5f, 5.5f}), Tensor::fromVector<float>({3}, {2, 2, -2})},
           DType::F32, {3}, c);
  EXPECT_EQ(f.toVector<float>(), (std::vector<float>{1.5f, -1.5f, 1.5f}));
  EXPECT_THROW(run1("Mod", {Tensor::fromVector<float>({1}, {1}), Tensor::fromVector<float>({1}, {1})}, DType::F32, {1}),
               std::exception);
  EXPECT_THROW(run1("Mod", {a, Tensor::fromVector<int64_t>({1}, {0})}, DType::I64, {6}), std::exception);
}

TEST(UnaryKernels, Erf) {
  const Tensor y = run1("Erf", {Tensor::fromVector<float>({4}, {0, 0.5f, -1, 3})}, DType::F32, {4});
  // erf(0) = 0, erf(0.5) = 0.5204999, erf(-1) = -0.8427008, erf(3) = 0.9999779.
  EXPECT_EQ(y.data<float>()[0], 0.0f);
  EXPECT_NEAR(y.data<float>()[1], 0.5204999f, 1e-6f);
  EXPECT_NEAR(y.data<float>()[2], -0.8427008f, 1e-6f);
  EXPECT_NEAR(y.data<float>()[3], 0.9999779f, 1e-6f);
}

TEST(UnaryKernels, Activations) {
  Tensor x = Tensor::fromVector<float>({5}, {-4, -0.5f, 0, 0.5f, 4});
  EXPECT_EQ(run1("Relu", {x}, DType::F32, {5}).toVector<float>(), (std::vector<float>{0, 0, 0, 0.5f, 4}));
  EXPECT_EQ(run1("LeakyRelu", {x}, DType::F32, {5}, makeAttrs({{"alpha", 0.5}})).toVector<float>(),
            (std::vector<float>{-2, -0.25f, 0, 0.5f, 4}));
  Tensor s = run1("Sigmoid", {x}, DType::F32, {5});
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(s.data<float>()[i], 1.0 / (1.0 + std::exp(-x.data<float>()[i])), 1e-6);
  EXPECT_EQ(run1("HardSigmoid", {x}, DType::F32, {5}).toVector<float>(), (std::vector<float>{0, 0.4f, 0.5f, 0.6f, 1}));
  EXPECT_EQ(run1("Neg", {x}, DType::F32, {5}).toVector<float>(), (std::vector<float>{4, 0.5f, 0, -0.5f, -4}));
  Tensor i8 = Tensor::fromVector<int8_t>({3}, {-3, 0, 3});
  EXPECT_EQ(run1("Relu", {i8}, DType::I8, {3}).toVector<int8_t>(), (std::vector<int8_t>{0, 0, 3}));
  EXPECT_EQ(run1("Abs", {i8}, DType::I8, {3}).toVector<int8_t>(), (std::vector<int8_t>{3, 0, 3}));
  EXPECT_THROW(run1("Sigmoid", {i8}, DType::I8, {3}), KernelError);
}

TEST(ClipKernel, AttributesInputsAndMissingBounds) {
  Tensor x = Tensor::fromVector<float>({5}, {-10, -1, 0, 5, 10});
  EXPECT_EQ(run1("Clip", {x}, DType::F32, {5}, makeAttrs({{"min", 0.0}, {"max", 6.0}})).toVector<float>(),
            (std::vector<float>{0, 0, 0, 5, 6}));
  EXPECT_EQ(run1("Clip", {x, Tensor::fromVector<float>({}, {-2}), Tensor::fromVector<float>({}, {2})}, DType::F32, {5})
                .toVector<float>(),
            (std::vector<float>{-2, -1, 0, 2, 2}));
  // Only max given (min missing): no lower bound.
  EXPECT_EQ(run1("Clip", {x, Tensor(), Tensor::fromVector<float>({}, {1})}, DType::F32, {5}).toVector<float>(),
            (std::vector<float>{-10, -1, 0, 1, 1}));
  EXPECT_EQ(run1("Clip", {x}, DType::F32, {5}).toVector<float>(), x.toVector<float>());
  Tensor u = Tensor::fromVector<uint8_t>({3}, {0, 100, 255});
  EXPECT_EQ(
      run1("Clip", {u, Tensor::fromVector<uint8_t>({}, {10}), Tensor::fromVector<uint8_t>({}, {200})}, DType::U8, {3})
          .toVector<uint8_t>(),
      (std::vector<uint8_t>{10, 100, 200}));
}

TEST(CastKernel, ConvertsBetweenTypes) {
  Tensor x = Tensor::fromVector<float>({5}, {-1.7f, 0.0f, 2.9f, 300.0f, -300.0f});
  EXPECT_EQ(run1("Cast", {x}, DType::I32, {5}).toVector<int32_t>(), (std::vector<int32_t>{-1, 0, 2, 300, -300}));
  EXPECT_EQ(run1("Cast", {x}, DType::I8, {5}).toVector<int8_t>(), (std::vector<int8_t>{-1, 0, 2, 127, -128}));
  Tensor b = run1("Cast", {x}, DType::Bool, {5});
  EXPECT_EQ(b.getAsInt(0), 1);
  EXPECT_EQ(b.getAsInt(1), 0);
  Tensor i = Tensor::fromVector<int64_t>({2}, {-5, 1LL << 40});
  EXPECT_EQ(run1("Cast", {i}, DType::F32, {2}).toVector<float>(), (std::vector<float>{-5.0f, 1099511627776.0f}));
}

}  // namespace
}  // namespace vdla::rt::testing
