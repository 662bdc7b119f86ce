// Which MaxPool nodes the accelerator can run, and their layer description.
#include "vdla/compiler/accel/pool_layer.h"

#include <algorithm>
#include <stdexcept>

namespace vdla::accel {

namespace {

bool isInt8Nchw(const ir::Value* v) {
  return v && v->hasType() && v->type().dtype == rt::DType::I8 && v->type().shape.size() == 4;
}

}  // namespace

std::string whyNotOffloadablePool(const ir::Node& node) {
  if (node.qualifiedOp() != "MaxPool") return "runs on the CPU";
  if (!isInt8Nchw(node.input(0)) || !isInt8Nchw(node.output(0))) return "max pooling of a tensor that is not int8 NCHW";
  if (node.numOutputs() > 1 && node.output(1)) return "max pooling with an Indices output";
  const rt::AttributeMap& a = node.attrs();
  if (a.getString("auto_pad", "NOTSET") != "NOTSET") return "max pooling with auto_pad";
  if (a.getInt("storage_order", 0) != 0) return "max pooling with storage_order 1";
  const std::vector<int64_t> k = a.getInts("kernel_shape", {});
  const std::vector<int64_t> d = a.getInts("dilations", {1, 1});
  if (k.size() != 2 || d != std::vector<int64_t>{1, 1}) return "max pooling that is not 2-D without dilation";
  const std::vector<int64_t> pads = a.getInts("pads", {0, 0, 0, 0});
  const std::vector<int64_t> s = a.getInts("strides", {1, 1});
  if (pads.size() != 4 || s.size() != 2) return "max pooling with malformed pads or strides";
  // ceil_mode may add a last window past the bottom or right padding; every
  // window must still start inside the padded input.
  const rt::Shape& x = node.input(0)->type().shape;
  const rt::Shape& y = node.output(0)->type().shape;
  if (y[0] != x[0] || y[1] != x[1] || (y[2] - 1) * s[0] >= x[2] + pads[0] + pads[2] ||
      (y[3] - 1) * s[1] >= x[3] + pads[1] + pads[3])
    return "max pooling whose output shape does not fit its input and window";
  const bool padded = std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
  if (padded) {
    // The DMA pads with zeros: the same maximum only for inputs that are never
    // negative. (A fused addition's output is not bounded by clip_lo.)
    const ir::Node* producer = node.input(0)->producer();
    if (!producer || producer->qualifiedOp() != "vdla.QConv" || producer->attrs().getInt("clip_lo", -128) < 0 ||
        producer->attrs().getInt("post_add", 0) != 0)
      return "padded max pooling of an input that can be negative (the DMA pads with zeros)";
  }
  return "";
}

PoolLayer poolLayerFromNode(const ir::Node& node) {
  const std::string why = whyNotOffloadablePool(node);
  if (!why.empty()) throw std::logic_error(node.describe() + ": not an offloadable max pooling: " + why);
  const rt::AttributeMap& a = node.attrs();
  const rt::Shape& x = node.input(0)->type().shape;
  const rt::Shape& y = node.output(0)->type().shape;
  const std::vector<int64_t> k = a.getInts("kernel_shape");
  const std::vector<int64_t> s = a.getInts("strides", {1, 1});
  const std::vector<int64_t> p = a.getInts("pads", {0, 0, 0, 0});
  PoolLayer L;
  L.name = node.name();
  L.n = x[0];
  L.c = x[1];
  L.h = x[2];
  L.w = x[3];
  L.kh = k[0];
  L.kw = k[1];
  L.sh = s[0];
  L.sw = s[1];
  L.pad_top = p[0];
  L.pad_left = p[1];
  L.pad_bottom = p[2];
  L.pad_right = p[3];
  L.oh = y[2];
  L.ow = y[3];
  return L;
}

}  // namespace vdla::accel
