// Gemm, MatMul, MatMulInteger and QLinearMatMul against triple loops written
// from the definitions, and quantised cases computed by hand.
#include "kernel_test_util.h"

namespace vdla::rt::testing {
namespace {

// Element (r, c) of a row-major [rows, cols] matrix, optionally read transposed.
double at(const Tensor& t, int64_t r, int64_t c, bool trans) {
  return trans ? t.getAsDouble(c * t.dim(1) + r) : t.getAsDouble(r * t.dim(1) + c);
}

TEST(GemmKernel, MatchesDefinitionWithTransposesAlphaBetaAndBroadcastC) {
  std::mt19937 rng(21);
  const int64_t M = 7, K = 13, N = 9;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (const Shape& cs : {Shape{}, Shape{N}, Shape{1, N}, Shape{M, 1}, Shape{M, N}}) {
        SCOPED_TRACE("transA " + std::to_string(ta) + " transB " + std::to_string(tb) + " C " + shapeToString(cs));
        Tensor a = randomF32(ta ? Shape{K, M} : Shape{M, K}, rng);
        Tensor b = randomF32(tb ? Shape{N, K} : Shape{K, N}, rng);
        Tensor c = randomF32(cs, rng);
        Tensor y = run1("Gemm", {a, b, c}, DType::F32, {M, N},
                        makeAttrs({{"transA", int64_t{ta}}, {"transB", int64_t{tb}}, {"alpha", 0.5}, {"beta", -2.0}}));
        for (int64_t i = 0; i < M; ++i)
          for (int64_t j = 0; j < N; ++j) {
            double acc = 0;
            for (int64_t k = 0; k < K; ++k) acc += at(a, i, k, ta) * at(b, k, j, tb);
            const int64_t ci =
                cs.size() == 2 ? (cs[0] == 1 ? 0 : i) * cs[1] + (cs[1] == 1 ? 0 : j) : (cs.empty() ? 0 : j);
            const double want = 0.5 * acc - 2.0 * c.getAsDouble(ci);
            ASSERT_NEAR(y.data<float>()[i * N + j], want, 1e-4) << i << "," << j;
          }
      }
}

TEST(GemmKernel, FusedReluAndNoC) {
  Tensor a = Tensor::fromVector<float>({1, 2}, {1, -1});
  Tensor b = Tensor::fromVector<float>({2, 2}, {1, 2, 3, 1});
  Tensor y = run1("Gemm", {a, b}, DType::F32, {1, 2}, makeAttrs({{"activation", std::string("Relu")}}));
  EXPECT_EQ(y.toVector<float>(), (std::vector<float>{0, 1}));
}

// numpy.matmul by definition on already-broadcast operands.
void checkMatMul(std::mt19937& rng, const Shape& as, const Shape& bs, const Shape& ys) {
  SCOPED_TRACE(shapeToString(as) + " x " + shapeToString(bs));
  Tensor a = randomF32(as, rng), b = randomF32(bs, rng);
  Tensor y = run1("MatMul", {a, b}, DType::F32, ys);
  Shape a2 = as.size() == 1 ? Shape{1, as[0]} : as, b2 = bs.size() == 1 ? Shape{bs[0], 1} : bs;
  const int64_t M = a2[a2.size() - 2], K = a2.back(), N = b2.back();
  const int64_t batches = y.numElements() / (M * N);
  // Batch coordinate -> operand matrix index with broadcasting (batch dims of rank <= 2 here).
  Shape batch(ys.begin(), ys.end() - (as.size() > 1) - (bs.size() > 1));
  auto matrixIndex = [&](const Shape& op, int64_t flat) {
    Shape ob(op.begin(), op.end() - 2);
    int64_t index = 0, stride = 1;
    for (int64_t d = static_cast<int64_t>(batch.size()) - 1, od = static_cast<int64_t>(ob.size()) - 1; d >= 0;
         --d, --od) {
      const int64_t coord = flat % batch[d];
      flat /= batch[d];
      if (od >= 0) {
        index += (ob[od] == 1 ? 0 : coord) * stride;
        stride *= ob[od];
      }
    }
    return index;
  };
  for (int64_t bi = 0; bi < batches; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double acc = 0;
        const int64_t ia = matrixIndex(a2, bi), ib = matrixIndex(b2, bi);
        for (int64_t k = 0; k < K; ++k)
          acc += a.getAsDouble((ia * M + i) * K + k) * b.getAsDouble((ib * K + k) * N + j);
        ASSERT_NEAR(y.data<float>()[(bi * M + i) * N + j], acc, 1e-4);
      }
}

// Einsum against products written out by hand: attention's two contractions
// (as maxvit writes them), a diagonal, a full sum and broadcast ellipses.
TEST(EinsumKernel, MatchesExplicitSums) {
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> u(-1, 1);
  auto random = [&](const Shape& s) {
    Tensor t(DType::F32, s);
    for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = u(rng);
    return t;
  };
  auto eq = [](const char* e) {
    AttributeMap m;
    m.set("equation", std::string(e));
    return m;
  };
  const int64_t G = 2, I = 3, J = 4, D = 5;
  const Tensor q = random({G, I, D}), k = random({G, J, D}), v = random({G, J, D});
  const Tensor s = run1("Einsum", {q, k}, DType::F32, {G, I, J}, eq("G I D, G J D -> G I J"));
  for (int64_t g = 0; g < G; ++g)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t j = 0; j < J; ++j) {
        double want = 0;
        for (int64_t d = 0; d < D; ++d)
          want += double(q.data<float>()[(g * I + i) * D + d]) * k.data<float>()[(g * J + j) * D + d];
        EXPECT_NEAR(s.data<float>()[(g * I + i) * J + j], want, 1e-6);
      }
  const Tensor o = run1("Einsum", {s, v}, DType::F32, {G, I, D}, eq("GIJ,GJD->GID"));
  for (int64_t g = 0; g < G; ++g)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t d = 0; d < D; ++d) {
        double want = 0;
        for (int64_t j = 0; j < J; ++j)
          want += double(s.data<float>()[(g * I + i) * J + j]) * v.data<float>()[(g * J + j) * D + d];
        EXPECT_NEAR(o.data<float>()[(g * I + i) * D + d], want, 1e-6);
      }
  const Tensor m = Tensor::fromVector<float>({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(run1("Einsum", {m}, DType::F32, {3}, eq("ii->i")).toVector<float>(), (std::vector<float>{1, 5, 9}));
  EXPECT_EQ(run1("Einsum", {m}, DType::F32, {}, eq("ij->")).toVector<float>(), (std::vector<float>{45}));
  EXPECT_EQ(run1("Einsum", {m}, DType::F32, {3, 3}, eq("ij->ji")).toVector<float>(),
            (std::vector<float>{1, 4, 7, 2, 5, 8, 3, 6, 9}));
  // Batch dimensions under "..." broadcast: [2,1] against [3].
  const Tensor a = random({2, 1, 2, 3}), b = random({3, 3, 2});
  const Tensor c = run1("Einsum", {a, b}, DType::F32, {2, 3, 2, 2}, eq("...ij,...jk->...ik"));
  for (int64_t x = 0; x < 2; ++x)
    for (int64_t y = 0; y < 3; ++y)
      for (int64_t i = 0; i < 2; ++i)
        for (int64_t kk = 0; kk < 2; ++kk) {
          double want = 0;
          for (int64_t j = 0; j < 3; ++j)
            want += double(a.data<float>()[(x * 2 + i) * 3 + j]) * b.data<float>()[(y * 3 + j) * 2 + kk];
          EXPECT_NEAR(c.data<float>()[((x * 3 + y) * 2 + i) * 2 + kk], want, 1e-6);
        }
}

TEST(MatMulKernel, NumpySemantics) {
  std::mt19937 rng(8);
  checkMatMul(rng, {5, 6}, {6, 7}, {5, 7});
  checkMatMul(rng, {3, 5, 6}, {6, 2}, {3, 5, 2});
  checkMatMul(rng, {5, 6}, {4, 6, 3}, {4, 5, 3});
  checkMatMul(rng, {2, 1, 4, 3}, {5, 3, 2}, {2, 5, 4, 2});
  checkMatMul(rng, {6}, {6, 3}, {3});
  checkMatMul(rng, {2, 4, 6}, {6}, {2, 4});
  checkMatMul(rng, {6}, {6}, {});
  checkMatMul(rng, {3, 130, 600}, {600, 70}, {3, 130, 70});  // crosses the GEMM blocks
  EXPECT_THROW(run1("MatMul", {Tensor(DType::F32, {2, 3}), Tensor(DType::F32, {4, 2})}, DType::F32, {2, 2}),
               KernelError);
}

TEST(MatMulIntegerKernel, PerRowAndPerColumnZeroPoints) {
  Tensor a = Tensor::fromVector<uint8_t>({2, 3}, {10, 20, 30, 40, 50, 60});
  Tensor b = Tensor::fromVector<int8_t>({3, 2}, {1, -2, 3, -4, 5, -6});
  Tensor a_zp = Tensor::fromVector<uint8_t>({2}, {10, 40});
  Tensor b_zp = Tensor::fromVector<int8_t>({2}, {1, -1});
  Tensor y = run1("MatMulInteger", {a, b, a_zp, b_zp}, DType::I32, {2, 2});
  // a - zp = [[0,10,20],[0,10,20]]; b - zp = [[0,-1],[2,-3],[4,-5]]
  EXPECT_EQ(y.toVector<int32_t>(), (std::vector<int32_t>{100, -130, 100, -130}));
}

TEST(QLinearMatMulKernel, HandComputedRoundingAndSaturation) {
  // a [1,4] x b [4,1] accumulates sum(a) (b = 1); scales make y = acc * 0.5.
  Tensor b = Tensor::fromVector<uint8_t>({4, 1}, {1, 1, 1, 1});
  Tensor sa = Tensor::fromVector<float>({}, {1.0f}), sb = Tensor::fromVector<float>({}, {0.5f});
  Tensor sy = Tensor::fromVector<float>({}, {1.0f});
  Tensor zu = Tensor::fromVector<uint8_t>({}, {0});
  auto run = [&](std::vector<uint8_t> av, uint8_t y_zp) {
    Tensor a = Tensor::fromVector<uint8_t>({1, 4}, av);
    return run1("QLinearMatMul", {a, sa, zu, b, sb, zu, sy, Tensor::fromVector<uint8_t>({}, {y_zp})}, DType::U8, {1, 1})
        .data<uint8_t>()[0];
  };
  EXPECT_EQ(run({1, 1, 1, 2}, 0), 2);            // 2.5 -> 2
  EXPECT_EQ(run({1, 1, 1, 4}, 0), 4);            // 3.5 -> 4
  EXPECT_EQ(run({255, 255, 255, 255}, 0), 255);  // 510 saturates
  EXPECT_EQ(run({1, 1, 1, 2}, 254), 255);        // 2 + 254 saturates
  // int8 with a zero point on a: (a - 3) summed = -5 -> -2.5 -> -2.
  Tensor a8 = Tensor::fromVector<int8_t>({1, 4}, {3, 3, 3, -2});
  Tensor b8 = Tensor::fromVector<int8_t>({4, 1}, {1, 1, 1, 1});
  Tensor z8 = Tensor::fromVector<int8_t>({}, {0});
  Tensor y =
      run1("QLinearMatMul", {a8, sa, Tensor::fromVector<int8_t>({}, {3}), b8, sb, z8, sy, z8}, DType::I8, {1, 1});
  EXPECT_EQ(y.data<int8_t>()[0], -2);
}

TEST(QLinearMatMulKernel, PerColumnScalesOfB) {
  Tensor a = Tensor::fromVector<uint8_t>({1, 2}, {3, 4});
  Tensor b = Tensor::fromVector<uint8_t>({2, 2}, {1, 1, 1, 1});
  Tensor sa = Tensor::fromVector<float>({}, {1.0f}), sb = Tensor::fromVector<float>({2}, {1.0f, 0.25f});
  Tensor sy = Tensor::fromVector<float>({}, {1.0f});
  Tensor zu = Tensor::fromVector<uint8_t>({}, {0});
  Tensor y =
      run1("QLinearMatMul", {a, sa, zu, b, sb, Tensor::fromVector<uint8_t>({2}, {0, 0}), sy, zu}, DType::U8, {1, 2});
  EXPECT_EQ(y.toVector<uint8_t>(), (std::vector<uint8_t>{7, 2}));  // 7 and 1.75 -> 2
}

}  // namespace
}  // namespace vdla::rt::testing
