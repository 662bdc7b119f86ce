// Linear quantisation: QuantizeLinear, DequantizeLinear (per tensor or per
// axis) and the onnxruntime contrib element-wise ops com.microsoft.QLinearAdd
// and com.microsoft.QLinearMul (per-tensor parameters, numpy broadcasting).
// QuantizeLinear's output type is its zero point's, else the attribute
// output_dtype (opset 21), else uint8. Blocked quantisation (block_size) is not
// supported.
#include "register_ops.h"
#include "shape_helpers.h"

namespace vdla::ir {

namespace {

// Checks scale/zero point against x (per tensor, or 1-D along `axis`).
void checkQuantParams(const Node& node, const TensorType& x, size_t scale_input, size_t zp_input,
                      const char* scale_name, const char* zp_name) {
  const int64_t block = node.attrs().getInt("block_size", 0);
  if (block != 0)
    throw std::invalid_argument("attribute 'block_size' = " + std::to_string(block) +
                                " is not supported (blocked quantisation)");
  const TensorType& scale = inputType(node, scale_input);
  expectDType(scale, {DType::F32}, scale_name);
  const bool per_axis = !(scale.shape.size() <= 1 && scale.numElements() == 1);
  if (per_axis) {
    if (scale.shape.size() != 1)
      throw std::invalid_argument(std::string(scale_name) + " must be a scalar or 1-D, got shape " +
                                  rt::shapeToString(scale.shape));
    const int64_t axis = normalizeAxis(node.attrs().getInt("axis", 1), static_cast<int64_t>(x.shape.size()));
    if (scale.shape[0] != x.shape[axis])
      throw std::invalid_argument(std::string(scale_name) + " has " + std::to_string(scale.shape[0]) +
                                  " values but axis " + std::to_string(axis) + " of " + rt::shapeToString(x.shape) +
                                  " has " + std::to_string(x.shape[axis]));
  }
  if (hasInput(node, zp_input)) {
    const TensorType& zp = inputType(node, zp_input);
    if (zp.numElements() != scale.numElements() || (per_axis && zp.shape != scale.shape))
      throw std::invalid_argument(std::string(zp_name) + " " + rt::shapeToString(zp.shape) +
                                  " does not match the shape of " + scale_name + " " + rt::shapeToString(scale.shape));
  }
}

void inferQuantizeLinear(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::F32, DType::I32}, "input x");
  checkQuantParams(node, x, 1, 2, "y_scale", "y_zero_point");
  DType out = DType::U8;
  if (node.attrs().has("output_dtype")) out = dtypeAttribute(node.attrs(), "output_dtype");
  if (hasInput(node, 2)) {
    const TensorType& zp = inputType(node, 2);
    if (node.attrs().has("output_dtype") && zp.dtype != out)
      throw std::invalid_argument("attribute 'output_dtype' disagrees with y_zero_point's type " +
                                  std::string(rt::dtypeName(zp.dtype)));
    out = zp.dtype;
  }
  if (out != DType::U8 && out != DType::I8)
    throw std::invalid_argument(std::string("quantised type must be u8 or i8, got ") + rt::dtypeName(out));
  setOutputType(node, 0, out, x.shape);
}

void inferDequantizeLinear(Node& node) {
  const TensorType& x = inputType(node, 0);
  expectDType(x, {DType::U8, DType::I8, DType::I32}, "input x");
  checkQuantParams(node, x, 1, 2, "x_scale", "x_zero_point");
  if (hasInput(node, 2)) {
    expectDType(inputType(node, 2), {x.dtype}, "x_zero_point");
    if (x.dtype == DType::I32 && isConstantInput(node, 2))
      for (int64_t v : constantInts(node, 2, "x_zero_point"))
        if (v != 0) throw std::invalid_argument("x_zero_point of an int32 input must be 0");
  }
  setOutputType(node, 0, DType::F32, x.shape);
}

// QLinearAdd/QLinearMul(A, A_scale, A_zero_point?, B, B_scale, B_zero_point?,
// C_scale, C_zero_point?) -> C of A's type.
void inferQLinearBinary(Node& node) {
  const TensorType& a = inputType(node, 0);
  const TensorType& b = inputType(node, 3);
  expectDType(a, {DType::U8, DType::I8}, "input A");
  expectDType(b, {a.dtype}, "input B");
  const char* scales[] = {"A_scale", "B_scale", "C_scale"};
  const char* zps[] = {"A_zero_point", "B_zero_point", "C_zero_point"};
  const size_t scale_inputs[] = {1, 4, 6};
  for (size_t k = 0; k < 3; ++k) {
    const size_t s = scale_inputs[k], z = s + 1;
    expectDType(inputType(node, s), {DType::F32}, scales[k]);
    expectScalar(inputType(node, s), scales[k]);
    if (hasInput(node, z)) {
      expectDType(inputType(node, z), {a.dtype}, zps[k]);
      expectScalar(inputType(node, z), zps[k]);
    }
  }
  setOutputType(node, 0, a.dtype, broadcastShapes(a.shape, b.shape));
}

}  // namespace

void registerQuantizeOps(OpRegistry& r) {
  r.add({"QuantizeLinear", 2, 3, 1, 1, inferQuantizeLinear});
  r.add({"DequantizeLinear", 2, 3, 1, 1, inferDequantizeLinear});
  r.add({"com.microsoft.QLinearAdd", 7, 8, 1, 1, inferQLinearBinary});
  r.add({"com.microsoft.QLinearMul", 7, 8, 1, 1, inferQLinearBinary});
}

}  // namespace vdla::ir
