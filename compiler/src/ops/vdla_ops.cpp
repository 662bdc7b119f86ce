// The accelerator's own operators (domain "vdla"). vdla.QConv is the integer
// convolution with its requantisation sequence that the quantisation pass
// emits and the vdla backend lowers onto the GEMM core and ALU; its semantics
// are written out in vdla/runtime/qconv_attributes.h. Weights and the
// per-channel parameters must be constants: the backend places them in the
// artifact, and the requantisation parameters were chosen from them.
#include "register_ops.h"
#include "shape_helpers.h"
#include "vdla/runtime/qconv_attributes.h"

namespace vdla::ir {

namespace {

void expectChannelVector(const Node& node, size_t i, int64_t channels, const char* what) {
  const TensorType& t = inputType(node, i);
  expectDType(t, {DType::I32}, what);
  if (t.shape != Shape{channels})
    throw std::invalid_argument(std::string(what) + " must have shape [" + std::to_string(channels) + "], got " +
                                rt::shapeToString(t.shape));
  if (!isConstantInput(node, i)) throw std::invalid_argument(std::string(what) + " must be a constant");
}

void inferQConv(Node& node) {
  const rt::QConvAttributes q = rt::readQConvAttributes(node.attrs());
  const TensorType& x = inputType(node, 0);
  const TensorType& w = inputType(node, 1);
  expectDType(x, {DType::I8}, "input X");
  expectDType(w, {DType::I8}, "weights W");
  if (x.shape.size() != 4)
    throw std::invalid_argument("input X must be [N, C, H, W], got " + rt::shapeToString(x.shape));
  if (w.shape.size() != 4)
    throw std::invalid_argument("weights W must be [O, C/group, KH, KW], got " + rt::shapeToString(w.shape));
  if (!isConstantInput(node, 1)) throw std::invalid_argument("weights W must be a constant");
  // A fused 1x1 expansion (inputs 7-10, attributes expand_*; the accelerator
  // back end's, accel/expanded_depthwise.h): X feeds it, and its output
  // feeds W.
  int64_t channels = x.shape[1];
  if (hasInput(node, 7)) {
    const rt::QConvAttributes e = rt::readQConvAttributes(rt::attributesWithPrefix(node.attrs(), "expand_"));
    const TensorType& we = inputType(node, 7);
    expectDType(we, {DType::I8}, "expansion weights");
    if (we.shape.size() != 4 || we.shape[1] != x.shape[1] || we.shape[2] != 1 || we.shape[3] != 1 || e.group != 1)
      throw std::invalid_argument("expansion weights must be [M, " + std::to_string(x.shape[1]) +
                                  ", 1, 1] of an ungrouped layer, got " + rt::shapeToString(we.shape));
    if (!isConstantInput(node, 7)) throw std::invalid_argument("expansion weights must be a constant");
    channels = we.shape[0];
    expectChannelVector(node, 8, channels, "expansion bias1");
    expectChannelVector(node, 9, channels, "expansion mult");
    expectChannelVector(node, 10, channels, "expansion bias2");
    if (hasInput(node, 5)) throw std::invalid_argument("a layer with a fused expansion takes no residual R");
  }
  if (channels != w.shape[1] * q.group)
    throw std::invalid_argument("input channels " + std::to_string(channels) + " do not match W's " +
                                std::to_string(w.shape[1]) + " channels per group x group " + std::to_string(q.group));
  const int64_t o = w.shape[0];
  if (o < 1 || o % q.group != 0)
    throw std::invalid_argument("output channels " + std::to_string(o) + " are not a positive multiple of group " +
                                std::to_string(q.group));
  const Shape y = {x.shape[0], o,
                   rt::qconvOutputSize(x.shape[2], w.shape[2], q.stride[0], q.dilation[0], q.pads[0], q.pads[2]),
                   rt::qconvOutputSize(x.shape[3], w.shape[3], q.stride[1], q.dilation[1], q.pads[1], q.pads[3])};
  expectChannelVector(node, 2, o, "bias1");
  expectChannelVector(node, 3, o, "mult");
  expectChannelVector(node, 4, o, "bias2");
  const bool residual = hasInput(node, 5), residual_mult = hasInput(node, 6);
  if (residual != residual_mult)
    throw std::invalid_argument(residual ? "residual R needs residual_mult (input 6)"
                                         : "residual_mult (input 6) is given without a residual R (input 5)");
  if (residual) {
    const TensorType& r = inputType(node, 5);
    expectDType(r, {DType::I8}, "residual R");
    if (r.shape != y)
      throw std::invalid_argument("residual R " + rt::shapeToString(r.shape) + " must have the output's shape " +
                                  rt::shapeToString(y));
    expectChannelVector(node, 6, o, "residual_mult");
  }
  if (q.post_add && !residual) throw std::invalid_argument("post_add = 1 needs the residual R (input 5)");
  if (q.float_requant && residual && !q.post_add)
    throw std::invalid_argument("float_requant takes no residual R (only a post_add one)");
  setOutputType(node, 0, DType::I8, y);
}

}  // namespace

void registerVdlaOps(OpRegistry& r) { r.add({"vdla.QConv", 5, 11, 1, 1, inferQConv}); }

}  // namespace vdla::ir
