// Type inference of Gemm, MatMul, MatMulInteger and QLinearMatMul.
#include "op_test_util.h"

namespace vdla::ir::testing {
namespace {

TEST(EinsumShape, FromTheEquation) {
  auto eq = [](const char* e) { return makeAttrs({{"equation", std::string(e)}}); };
  EXPECT_EQ(infer1("Einsum", {f32({2, 3, 4, 5}), f32({2, 3, 6, 5})}, eq("B G I D, B G J D -> B G I J")),
            f32({2, 3, 4, 6}));
  EXPECT_EQ(infer1("Einsum", {f32({3, 4}), f32({4, 5})}, eq("ij,jk")), f32({3, 5}));  // implicit output
  EXPECT_EQ(infer1("Einsum", {f32({4, 4})}, eq("ii->i")), f32({4}));
  EXPECT_EQ(infer1("Einsum", {f32({3, 4})}, eq("ij->")), f32({}));
  EXPECT_EQ(infer1("Einsum", {f32({7, 1, 3, 4}), f32({5, 4, 2})}, eq("...ij,...jk->...ik")), f32({7, 5, 3, 2}));
  EXPECT_INFER_ERROR(inferError("Einsum", {f32({3, 4}), f32({5, 6})}, eq("ij,jk->ik")),
                     "label 'j' is 4 in one place and 5 in operand 1");
  EXPECT_INFER_ERROR(inferError("Einsum", {f32({3, 4})}, eq("ijk->i")), "operand 0 has rank 2 but its term names 3");
  EXPECT_INFER_ERROR(inferError("Einsum", {f32({3, 4})}, eq("ij->iz")), "output label 'z' names no input dimension");
  EXPECT_INFER_ERROR(inferError("Einsum", {f32({3})}, eq("i1->i")), "unexpected character '1'");
}

TEST(MatMulShape, NumpySemantics) {
  EXPECT_EQ(infer1("MatMul", {f32({3, 4}), f32({4, 5})}), f32({3, 5}));
  EXPECT_EQ(infer1("MatMul", {f32({2, 1, 3, 4}), f32({6, 4, 5})}), f32({2, 6, 3, 5}));
  EXPECT_EQ(infer1("MatMul", {f32({4}), f32({2, 4, 5})}), f32({2, 5}));
  EXPECT_EQ(infer1("MatMul", {f32({2, 3, 4}), f32({4})}), f32({2, 3}));
  EXPECT_EQ(infer1("MatMul", {f32({4}), f32({4})}), f32({}));
  EXPECT_INFER_ERROR(inferError("MatMul", {f32({3, 4}), f32({5, 6})}), "inner dimensions differ");
  EXPECT_INFER_ERROR(inferError("MatMul", {f32({2, 3, 4}), f32({3, 4, 5})}), "shapes [2] and [3] do not broadcast");
  EXPECT_INFER_ERROR(inferError("MatMul", {f32({}), f32({3})}), "rank >= 1");
}

TEST(GemmShape, TransposesAndC) {
  EXPECT_EQ(infer1("Gemm", {f32({1, 512}), f32({1000, 512}), f32({1000})}, makeAttrs({{"transB", int64_t{1}}})),
            f32({1, 1000}));
  EXPECT_EQ(infer1("Gemm", {f32({4, 3}), f32({4, 5}), f32({3, 1})}, makeAttrs({{"transA", int64_t{1}}})), f32({3, 5}));
  EXPECT_EQ(infer1("Gemm", {f32({3, 4}), f32({4, 5}), f32({})}, makeAttrs({{"activation", std::string("Relu")}})),
            f32({3, 5}));
  EXPECT_INFER_ERROR(inferError("Gemm", {f32({3, 4}), f32({4, 5}), f32({3})}), "C [3] does not broadcast to [3,5]");
  EXPECT_INFER_ERROR(inferError("Gemm", {f32({3, 4}), f32({5, 4})}), "inner dimensions differ");
  EXPECT_INFER_ERROR(inferError("Gemm", {f32({3, 4, 1}), f32({4, 5})}), "Gemm needs 2-D A and B");
  EXPECT_INFER_ERROR(inferError("Gemm", {f32({3, 4}), f32({4, 5})}, makeAttrs({{"transA", int64_t{2}}})),
                     "attribute 'transA' must be 0 or 1");
}

TEST(QLinearMatMulShape, TypesAndParameters) {
  std::vector<In> in = {tt(DType::U8, {2, 3, 4}), f32({}), tt(DType::U8, {}), tt(DType::I8, {4, 5}), f32({5}),
                        tt(DType::I8, {5}),       f32({}), tt(DType::U8, {})};
  EXPECT_EQ(infer1("QLinearMatMul", in), tt(DType::U8, {2, 3, 5}));
  in[4] = f32({4});
  EXPECT_INFER_ERROR(inferError("QLinearMatMul", in), "b_scale must be a scalar or a 1-D tensor of 5 elements");
  EXPECT_EQ(infer1("MatMulInteger", {tt(DType::U8, {3, 4}), tt(DType::U8, {4, 2}), tt(DType::U8, {3})}),
            tt(DType::I32, {3, 2}));
}

}  // namespace
}  // namespace vdla::ir::testing
