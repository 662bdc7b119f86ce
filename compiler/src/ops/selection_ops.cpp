// Type inference of comparison and selection: Equal, Not, Where, Expand. Exporters
// write them into shape computations (a class token's position, a mask),
// which constant folding evaluates on the reference kernels when the shapes
// are static.
#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

const std::initializer_list<DType> kComparable = {DType::F32, DType::I8,  DType::U8,
                                                  DType::I32, DType::I64, DType::Bool};

// Equal(A, B) -> bool, broadcast.
void inferEqual(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 1);
  expectDType(a, kComparable, "A");
  if (a.dtype != b.dtype)
    throw std::invalid_argument(std::string("operand types differ: ") + rt::dtypeName(a.dtype) + " and " +
                                rt::dtypeName(b.dtype));
  setOutputType(node, 0, DType::Bool, broadcastShapes(a.shape, b.shape));
}

// Not(X): bool to bool, element-wise (attention masks).
void inferNot(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::Bool}, "input");
  setOutputType(node, 0, DType::Bool, x.shape);
}

// Where(condition, X, Y) -> X's type, the three broadcast together.
void inferWhere(Node& node) {
  const TensorType& c = inputType(node, 0);
  const TensorType& x = inputType(node, 1);
  const TensorType& y = inputType(node, 2);
  expectDType(c, {DType::Bool}, "condition");
  expectDType(x, kComparable, "X");
  if (x.dtype != y.dtype)
    throw std::invalid_argument(std::string("X and Y types differ: ") + rt::dtypeName(x.dtype) + " and " +
                                rt::dtypeName(y.dtype));
  setOutputType(node, 0, x.dtype, broadcastShapes(broadcastShapes(c.shape, x.shape), y.shape));
}

// Expand(input, shape): the input broadcast with a constant shape.
void inferExpand(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& s = inputType(node, 1);
  expectDType(s, {DType::I64}, "shape");
  if (!isConstantInput(node, 1)) throw std::invalid_argument("shape must be a constant");
  const Tensor& dims = node.input(1)->constant();
  Shape shape;
  for (int64_t i = 0; i < dims.numElements(); ++i) shape.push_back(dims.getAsInt(i));
  setOutputType(node, 0, x.dtype, broadcastShapes(x.shape, shape));
}

}  // namespace

void registerSelectionOps(OpRegistry& r) {
  r.add({"Equal", 2, 2, 1, 1, inferEqual});
  r.add({"Not", 1, 1, 1, 1, inferNot});
  r.add({"Where", 3, 3, 1, 1, inferWhere});
  r.add({"Expand", 2, 2, 1, 1, inferExpand});
}

}  // namespace vdla::ir
