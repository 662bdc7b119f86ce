// Element-wise operators: unary activations keep their input's type; binary
// arithmetic broadcasts.
#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

void sameAsInput0(Node& node) {
  const TensorType& t = inputType(node, 0);
  setOutputType(node, 0, t.dtype, t.shape);
}

void broadcastBinary(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 1);
  if (a.dtype != b.dtype)
    throw std::invalid_argument(std::string("operand types differ: ") + rt::dtypeName(a.dtype) + " and " +
                                rt::dtypeName(b.dtype));
  setOutputType(node, 0, a.dtype, broadcastShapes(a.shape, b.shape));
}

}  // namespace

void registerElementwiseOps(OpRegistry& r) {
  for (const char* op : {"Relu", "Identity", "Sigmoid", "Tanh", "Exp", "Neg", "Sqrt", "Reciprocal"})
    r.add({op, 1, 1, 1, 1, sameAsInput0});
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) r.add({op, 2, 2, 1, 1, broadcastBinary});
}

}  // namespace vdla::ir
