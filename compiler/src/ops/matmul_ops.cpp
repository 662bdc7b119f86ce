// Matrix products: Gemm (alpha, beta, transA, transB, C broadcast to [M,N],
// optionally a fused activation), MatMul with numpy semantics (1-D operands,
// broadcast batch dimensions), MatMulInteger and QLinearMatMul.
#include "register_ops.h"
#include "shape_helpers.h"
#include "vdla/runtime/einsum_equation.h"

namespace vdla::ir {

namespace {

struct MatMulDims {
  Shape output;
  int64_t m = 1, n = 1;  // rows of A / columns of B (1 for a 1-D operand)
};

// numpy.matmul: a 1-D A is [1,K] and a 1-D B is [K,1], their unit dimension
// dropped from the result; the batch dimensions broadcast.
MatMulDims matmulShape(const Shape& a, const Shape& b) {
  if (a.empty() || b.empty())
    throw std::invalid_argument("MatMul operands must have rank >= 1, got " + rt::shapeToString(a) + " and " +
                                rt::shapeToString(b));
  Shape a2 = a.size() == 1 ? Shape{1, a[0]} : a;
  Shape b2 = b.size() == 1 ? Shape{b[0], 1} : b;
  const int64_t k_a = a2.back(), k_b = b2[b2.size() - 2];
  if (k_a != k_b)
    throw std::invalid_argument("inner dimensions differ: A " + rt::shapeToString(a) + " has K=" + std::to_string(k_a) +
                                ", B " + rt::shapeToString(b) + " has K=" + std::to_string(k_b));
  Shape batch = broadcastShapes(Shape(a2.begin(), a2.end() - 2), Shape(b2.begin(), b2.end() - 2));
  MatMulDims d;
  d.m = a2[a2.size() - 2];
  d.n = b2.back();
  d.output = batch;
  if (a.size() > 1) d.output.push_back(d.m);
  if (b.size() > 1) d.output.push_back(d.n);
  return d;
}

void inferMatMul(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 1);
  expectDType(a, {DType::F32}, "input A");
  expectDType(b, {DType::F32}, "input B");
  validateFusedActivation(node);
  setOutputType(node, 0, DType::F32, matmulShape(a.shape, b.shape).output);
}

void inferGemm(Node& node) {
  const AttributeMap& attrs = node.attrs();
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 1);
  expectDType(a, {DType::F32}, "input A");
  expectDType(b, {DType::F32}, "input B");
  if (a.shape.size() != 2 || b.shape.size() != 2)
    throw std::invalid_argument("Gemm needs 2-D A and B, got " + rt::shapeToString(a.shape) + " and " +
                                rt::shapeToString(b.shape));
  for (const char* name : {"transA", "transB"}) {
    int64_t v = attrs.getInt(name, 0);
    if (v != 0 && v != 1) throw std::invalid_argument(std::string("attribute '") + name + "' must be 0 or 1");
  }
  const bool ta = attrs.getInt("transA", 0) != 0, tb = attrs.getInt("transB", 0) != 0;
  const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const int64_t kb = tb ? b.shape[1] : b.shape[0], n = tb ? b.shape[0] : b.shape[1];
  if (k != kb)
    throw std::invalid_argument("inner dimensions differ: A" + std::string(ta ? "^T" : "") + " is [" +
                                std::to_string(m) + "," + std::to_string(k) + "], B" + (tb ? "^T" : "") + " is [" +
                                std::to_string(kb) + "," + std::to_string(n) + "]");
  if (hasInput(node, 2)) {
    const TensorType& c = inputType(node, 2);
    expectDType(c, {DType::F32}, "input C");
    // C broadcasts unidirectionally to [M, N].
    bool ok = c.shape.size() <= 2;
    try {
      ok = ok && broadcastShapes(c.shape, {m, n}) == Shape{m, n};
    } catch (const std::invalid_argument&) {
      ok = false;
    }
    if (!ok)
      throw std::invalid_argument("C " + rt::shapeToString(c.shape) + " does not broadcast to [" + std::to_string(m) +
                                  "," + std::to_string(n) + "]");
  }
  validateFusedActivation(node);
  setOutputType(node, 0, DType::F32, {m, n});
}

// MatMulInteger(A, B, a_zero_point?, b_zero_point?) -> i32; zero points per
// tensor, per row of A or per column of B.
void inferMatMulInteger(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 1);
  expectDType(a, {DType::U8, DType::I8}, "input A");
  expectDType(b, {DType::U8, DType::I8}, "input B");
  MatMulDims d = matmulShape(a.shape, b.shape);
  if (hasInput(node, 2)) {
    expectDType(inputType(node, 2), {a.dtype}, "a_zero_point");
    expectScalarOrVector(inputType(node, 2), d.m, "a_zero_point");
  }
  if (hasInput(node, 3)) {
    expectDType(inputType(node, 3), {b.dtype}, "b_zero_point");
    expectScalarOrVector(inputType(node, 3), d.n, "b_zero_point");
  }
  setOutputType(node, 0, DType::I32, d.output);
}

// QLinearMatMul(a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point).
void inferQLinearMatMul(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 3);
  expectDType(a, {DType::U8, DType::I8}, "input a");
  expectDType(b, {DType::U8, DType::I8}, "input b");
  MatMulDims d = matmulShape(a.shape, b.shape);
  expectDType(inputType(node, 1), {DType::F32}, "a_scale");
  expectScalarOrVector(inputType(node, 1), d.m, "a_scale");
  if (hasInput(node, 2)) {
    expectDType(inputType(node, 2), {a.dtype}, "a_zero_point");
    expectScalarOrVector(inputType(node, 2), d.m, "a_zero_point");
  }
  expectDType(inputType(node, 4), {DType::F32}, "b_scale");
  expectScalarOrVector(inputType(node, 4), d.n, "b_scale");
  if (hasInput(node, 5)) {
    expectDType(inputType(node, 5), {b.dtype}, "b_zero_point");
    expectScalarOrVector(inputType(node, 5), d.n, "b_zero_point");
  }
  expectDType(inputType(node, 6), {DType::F32}, "y_scale");
  expectScalarOrVector(inputType(node, 6), d.m, "y_scale");
  DType out = a.dtype;
  if (hasInput(node, 7)) {
    expectDType(inputType(node, 7), {DType::U8, DType::I8}, "y_zero_point");
    expectScalarOrVector(inputType(node, 7), d.m, "y_zero_point");
    out = inputType(node, 7).dtype;
  }
  setOutputType(node, 0, out, d.output);
}

// com.microsoft.QGemm(A, a_scale, a_zero_point, B, b_scale, b_zero_point, C?,
// y_scale?, y_zero_point?): int32 A'*B' (transA/transB) plus the int32 C,
// times alpha*a_scale*b_scale[/y_scale]; quantised output (y_zero_point's type,
// else A's) with y_scale, f32 without. b's parameters per tensor or per column.
void inferQGemm(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 3);
  expectDType(a, {DType::U8, DType::I8}, "input A");
  expectDType(b, {DType::U8, DType::I8}, "input B");
  if (a.dtype == DType::I8) expectDType(b, {DType::I8}, "input B (with an i8 A)");
  if (a.shape.size() != 2 || b.shape.size() != 2)
    throw std::invalid_argument("A " + rt::shapeToString(a.shape) + " and B " + rt::shapeToString(b.shape) +
                                " must be 2-D");
  const AttributeMap& attrs = node.attrs();
  const bool ta = attrs.getInt("transA", 0) != 0, tb = attrs.getInt("transB", 0) != 0;
  const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
  const int64_t kb = tb ? b.shape[1] : b.shape[0], n = tb ? b.shape[0] : b.shape[1];
  if (k != kb)
    throw std::invalid_argument("inner dimensions differ: A' has " + std::to_string(k) + " columns, B' " +
                                std::to_string(kb) + " rows");
  expectDType(inputType(node, 1), {DType::F32}, "a_scale");
  expectScalar(inputType(node, 1), "a_scale");
  if (hasInput(node, 2)) {
    expectDType(inputType(node, 2), {a.dtype}, "a_zero_point");
    expectScalar(inputType(node, 2), "a_zero_point");
  }
  expectDType(inputType(node, 4), {DType::F32}, "b_scale");
  expectScalarOrVector(inputType(node, 4), n, "b_scale");
  if (hasInput(node, 5)) {
    expectDType(inputType(node, 5), {b.dtype}, "b_zero_point");
    expectScalarOrVector(inputType(node, 5), n, "b_zero_point");
  }
  if (hasInput(node, 6)) {
    const TensorType& c = inputType(node, 6);
    expectDType(c, {DType::I32}, "input C");
    bool ok = c.shape.size() <= 2;
    try {
      ok = ok && broadcastShapes(c.shape, {m, n}) == Shape{m, n};
    } catch (const std::invalid_argument&) {
      ok = false;
    }
    if (!ok)
      throw std::invalid_argument("C " + rt::shapeToString(c.shape) + " does not broadcast to [" + std::to_string(m) +
                                  "," + std::to_string(n) + "]");
  }
  DType out = DType::F32;
  if (hasInput(node, 7)) {
    expectDType(inputType(node, 7), {DType::F32}, "y_scale");
    expectScalar(inputType(node, 7), "y_scale");
    out = a.dtype;
    if (hasInput(node, 8)) {
      expectDType(inputType(node, 8), {a.dtype}, "y_zero_point");
      expectScalar(inputType(node, 8), "y_zero_point");
    }
  } else if (hasInput(node, 8)) {
    throw std::invalid_argument("y_zero_point without y_scale");
  }
  setOutputType(node, 0, out, {m, n});
}

// Einsum(inputs...): f32 operands; the output shape from the equation
// resolved against their shapes (rt::resolveEinsum, shared with the kernel).
void inferEinsum(Node& node) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    const TensorType& t = inputType(node, i);
    expectDType(t, {DType::F32}, "operand " + std::to_string(i));
    shapes.push_back(t.shape);
  }
  if (!node.attrs().has("equation")) throw std::invalid_argument("attribute 'equation' is missing");
  setOutputType(node, 0, DType::F32, rt::resolveEinsum(node.attrs().getString("equation"), shapes).outputShape());
}

}  // namespace

void registerMatMulOps(OpRegistry& r) {
  r.add({"Einsum", 1, 16, 1, 1, inferEinsum});
  r.add({"Gemm", 2, 3, 1, 1, inferGemm});
  r.add({"MatMul", 2, 2, 1, 1, inferMatMul});
  r.add({"MatMulInteger", 2, 4, 1, 1, inferMatMulInteger});
  r.add({"QLinearMatMul", 8, 8, 1, 1, inferQLinearMatMul});
  r.add({"com.microsoft.QGemm", 6, 9, 1, 1, inferQGemm});
}

}  // namespace vdla::ir
