// Element-wise operators: unary activations and math keep their input's type;
// binary arithmetic (Add, Sub, Mul, Div) broadcasts numpy-style and may carry a
// fused activation (Add{activation="Relu"} from the fusion pass); Clip takes
// its bounds as attributes min/max (opset < 11) or optional scalar inputs;
// Dropout is the identity at inference (its optional mask output is all true);
// Cast converts to the element type named by `to`.
#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

void unaryFloat(Node& node) {
  const TensorType& t = inputType(node, 0);
  expectDType(t, {DType::F32}, "input");
  setOutputType(node, 0, t.dtype, t.shape);
}

void unarySigned(Node& node) {
  const TensorType& t = inputType(node, 0);
  expectDType(t, {DType::F32, DType::I8, DType::I32, DType::I64}, "input");
  setOutputType(node, 0, t.dtype, t.shape);
}

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
  expectDType(a, {DType::F32, DType::U8, DType::I8, DType::I32, DType::I64}, "operands");
  validateFusedActivation(node);
  if (node.attrs().has("activation") && a.dtype != DType::F32)
    throw std::invalid_argument("attribute 'activation' needs f32 operands");
  setOutputType(node, 0, a.dtype, broadcastShapes(a.shape, b.shape));
}

// Mod(A, B): operands of one type, broadcast. fmod = 0 (the default) is the
// integer remainder with the divisor's sign; fmod = 1 the C remainder with the
// dividend's, which ONNX requires for floating point.
void inferMod(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 1);
  if (a.dtype != b.dtype)
    throw std::invalid_argument(std::string("operand types differ: ") + rt::dtypeName(a.dtype) + " and " +
                                rt::dtypeName(b.dtype));
  expectDType(a, {DType::F32, DType::U8, DType::I8, DType::I32, DType::I64}, "operands");
  const int64_t fmod = node.attrs().getInt("fmod", 0);
  if (fmod != 0 && fmod != 1)
    throw std::invalid_argument("attribute 'fmod' must be 0 or 1, got " + std::to_string(fmod));
  if (a.dtype == DType::F32 && fmod != 1) throw std::invalid_argument("Mod of f32 operands needs fmod = 1");
  setOutputType(node, 0, a.dtype, broadcastShapes(a.shape, b.shape));
}

// Pow(X, Y): f32 base; the exponent f32 or an integer type (ONNX allows the
// two to differ); the result has the base's type and the broadcast shape.
void inferPow(Node& node) {
  const TensorType& x = inputType(node, 0);
  const TensorType& y = inputType(node, 1);
  expectDType(x, {DType::F32}, "base");
  expectDType(y, {DType::F32, DType::I32, DType::I64}, "exponent");
  setOutputType(node, 0, x.dtype, broadcastShapes(x.shape, y.shape));
}

void inferClip(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32, DType::U8, DType::I8, DType::I32, DType::I64}, "input");
  const bool attr_bounds = node.attrs().has("min") || node.attrs().has("max");
  if (attr_bounds && (hasInput(node, 1) || hasInput(node, 2)))
    throw std::invalid_argument("bounds are given both as attributes (min/max) and as inputs");
  if (attr_bounds && x.dtype != DType::F32) throw std::invalid_argument("attributes 'min'/'max' need an f32 input");
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!hasInput(node, i)) continue;
    const char* name = i == 1 ? "min" : "max";
    expectDType(inputType(node, i), {x.dtype}, name);
    expectScalar(inputType(node, i), name);
  }
  setOutputType(node, 0, x.dtype, x.shape);
}

// Dropout(data, ratio?, training_mode?) -> output, mask?.
void inferDropout(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32}, "input data");
  if (isConstantInput(node, 2) && node.input(2)->constant().numElements() == 1 &&
      node.input(2)->constant().getAsInt(0) != 0)
    throw std::invalid_argument("training_mode = true is not supported (inference only)");
  setOutputType(node, 0, x.dtype, x.shape);
  if (node.numOutputs() > 1) setOutputType(node, 1, DType::Bool, x.shape);
}

void inferCast(Node& node) {
  const TensorType& x = inputType(node, 0);
  setOutputType(node, 0, dtypeAttribute(node.attrs(), "to"), x.shape);
}

}  // namespace

void registerElementwiseOps(OpRegistry& r) {
  for (const char* op :
       {"Sigmoid", "Tanh", "Exp", "Sqrt", "Reciprocal", "LeakyRelu", "HardSigmoid", "HardSwish", "Erf"})
    r.add({op, 1, 1, 1, 1, unaryFloat});
  for (const char* op : {"Relu", "Neg", "Abs"}) r.add({op, 1, 1, 1, 1, unarySigned});
  r.add({"Identity", 1, 1, 1, 1, sameAsInput0});
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) r.add({op, 2, 2, 1, 1, broadcastBinary});
  r.add({"Pow", 2, 2, 1, 1, inferPow});
  r.add({"Mod", 2, 2, 1, 1, inferMod});
  r.add({"Clip", 1, 3, 1, 1, inferClip});
  r.add({"Dropout", 1, 3, 1, 2, inferDropout});
  r.add({"Cast", 1, 1, 1, 1, inferCast});
}

}  // namespace vdla::ir
