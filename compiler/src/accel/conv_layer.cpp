#include "vdla/compiler/accel/conv_layer.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>

namespace vdla::accel {

namespace {

std::vector<int32_t> int32Vector(const ir::Value* v, int64_t o) {
  std::vector<int32_t> out(static_cast<size_t>(o));
  const rt::Tensor& t = v->constant();
  for (int64_t i = 0; i < o; ++i) out[static_cast<size_t>(i)] = t.data<int32_t>()[i];
  return out;
}

// The layer with its padding moved to the host's input transform (with the
// value it stands for), for the forms whose transform reads the padded image.
ConvLayer withPaddingOnTheHost(const ConvLayer& L) {
  ConvLayer R = L;
  if (L.pad_value != 0) R.host.pad_value = static_cast<int8_t>(L.pad_value);
  R.pad_value = 0;
  R.host.pad_top += L.pad_top;
  R.host.pad_left += L.pad_left;
  R.host.pad_bottom += L.pad_bottom;
  R.host.pad_right += L.pad_right;
  return R;
}

}  // namespace

std::string whyNotOffloadable(const ir::Node& node) {
  if (node.qualifiedOp() != "vdla.QConv") return "not a vdla.QConv";
  for (size_t i : {1, 2, 3, 4})
    if (!node.input(i) || !node.input(i)->isConstant()) return "weights and requantisation vectors must be constants";
  if (node.input(5) && (!node.input(6) || !node.input(6)->isConstant()))
    return "residual multiplier must be a constant";
  if (node.input(7))
    for (size_t i : {7, 8, 9, 10})
      if (!node.input(i) || !node.input(i)->isConstant())
        return "a fused expansion's weights and requantisation vectors must be constants";
  const rt::AttributeMap& a = node.attrs();
  const std::vector<int64_t> d = a.getInts("dilations", {1, 1});
  if (d[0] != 1 || d[1] != 1) return "dilated convolution";
  if (node.input(0)->type().shape.size() != 4) return "input is not 4-D";
  if (a.getInt("wide_product", 0) != 0) {
    const rt::Tensor& mult = node.input(3)->constant();
    for (int64_t i = 0; i < mult.numElements(); ++i)
      if (mult.data<int32_t>()[i] < -(1 << 25) || mult.data<int32_t>()[i] >= (1 << 25))
        return "wide_product multiplier beyond the 26 bits of MULSHR";
    if (node.input(5) && a.getInt("residual_shift", 0) != 0) {
      const rt::Tensor& rm = node.input(6)->constant();
      for (int64_t i = 0; i < rm.numElements(); ++i)
        if (rm.data<int32_t>()[i] < -(1 << 25) || rm.data<int32_t>()[i] >= (1 << 25))
          return "residual multiplier beyond the 26 bits of MULSHR";
    }
  }
  if (a.getInt("post_add", 0) != 0) {
    // The ALU adds in wrapping 32 bits: the sum must stay inside int32 for
    // every int8 output and residual (the definition is 64-bit).
    const int64_t shift = a.getInt("add_shift", 0);
    const int64_t fixed = std::llabs(a.getInt("add_offset", 0)) + (shift > 0 ? int64_t{1} << (shift - 1) : 0) +
                          128 * std::llabs(a.getInt("add_y_mult", 0));
    const rt::Tensor& rm = node.input(6)->constant();
    for (int64_t i = 0; i < rm.numElements(); ++i)
      if (fixed + 128 * std::llabs(int64_t{rm.data<int32_t>()[i]}) > INT32_MAX)
        return "fused addition whose sums can leave the ALU's 32 bits";
  }
  return "";
}

namespace {

// One convolution from its parts: attributes (a fused expansion's without
// their prefix), the shapes of its input and output, and its constants.
ConvLayer layerOf(const std::string& name, const rt::AttributeMap& a, const rt::Shape& xs, const rt::Shape& ys,
                  const ir::Value* w, const ir::Value* bias1, const ir::Value* mult, const ir::Value* bias2) {
  ConvLayer L;
  L.name = name;
  const rt::Shape& ws = w->type().shape;
  L.n = xs[0];
  L.c = xs[1];
  L.h = xs[2];
  L.w = xs[3];
  L.o = ws[0];
  L.kh = ws[2];
  L.kw = ws[3];
  const std::vector<int64_t> s = a.getInts("strides", {1, 1});
  const std::vector<int64_t> p = a.getInts("pads", {0, 0, 0, 0});
  L.sh = s[0];
  L.sw = s[1];
  L.oh = ys[2];
  L.ow = ys[3];
  L.group = a.getInt("group", 1);
  L.shift1 = static_cast<int32_t>(a.getInt("shift1", 0));
  L.shift2 = static_cast<int32_t>(a.getInt("shift2", 0));
  L.wide_product = a.getInt("wide_product", 0) != 0;
  L.residual_shift = static_cast<int32_t>(a.getInt("residual_shift", 0));
  L.clip_lo = static_cast<int32_t>(a.getInt("clip_lo", -128));
  L.clip_hi = static_cast<int32_t>(a.getInt("clip_hi", 127));
  L.float_requant = a.getInt("float_requant", 0) != 0;
  L.y_zero_point = static_cast<int32_t>(a.getInt("y_zero_point", 0));
  L.post_add = a.getInt("post_add", 0) != 0;
  L.add_y_mult = static_cast<int32_t>(a.getInt("add_y_mult", 0));
  L.add_offset = static_cast<int32_t>(a.getInt("add_offset", 0));
  L.add_shift = static_cast<int32_t>(a.getInt("add_shift", 0));
  L.bias1 = int32Vector(bias1, L.o);
  L.mult = int32Vector(mult, L.o);
  L.bias2 = int32Vector(bias2, L.o);
  const rt::Tensor& wt = w->constant();
  L.weights.assign(wt.data<int8_t>(), wt.data<int8_t>() + wt.numElements());

  // The DMA pads with zeros; a nonzero zero point becomes a correction of the
  // border outputs, so the input needs nothing from the host.
  L.pad_top = p[0];
  L.pad_left = p[1];
  L.pad_bottom = p[2];
  L.pad_right = p[3];
  if (p[0] || p[1] || p[2] || p[3]) L.pad_value = static_cast<int32_t>(a.getInt("x_zero_point", 0));
  return L;
}

}  // namespace

ConvLayer convLayerFromNode(const ir::Node& node) {
  const std::string why = whyNotOffloadable(node);
  if (!why.empty()) throw std::invalid_argument(node.describe() + ": cannot run on the accelerator: " + why);
  const rt::AttributeMap& a = node.attrs();
  const rt::Shape& xs = node.input(0)->type().shape;
  const rt::Shape& ys = node.output(0)->type().shape;
  if (!node.input(7)) {
    ConvLayer L = layerOf(node.name(), a, xs, ys, node.input(1), node.input(2), node.input(3), node.input(4));
    L.residual = node.input(5) != nullptr;
    if (L.residual) L.residual_mult = int32Vector(node.input(6), L.o);
    return L;
  }
  // A fused expansion (accel/expanded_depthwise.h): the 1x1 layer from X,
  // then this one from its output, which has X's size.
  const rt::Shape mid = {xs[0], node.input(7)->type().shape[0], xs[2], xs[3]};
  ConvLayer E = layerOf(a.getString("expand_name", node.name() + "/expansion"), rt::attributesWithPrefix(a, "expand_"),
                        xs, mid, node.input(7), node.input(8), node.input(9), node.input(10));
  ConvLayer L = layerOf(node.name(), a, mid, ys, node.input(1), node.input(2), node.input(3), node.input(4));
  L.expansion = std::make_shared<const ConvLayer>(std::move(E));
  return L;
}

bool hasSpaceToDepthForm(const ConvLayer& L) { return L.group == 1 && L.sh == L.sw && L.sh >= 2; }

ConvLayer toSpaceToDepthLayer(const ConvLayer& L) {
  if (!hasSpaceToDepthForm(L))
    throw std::invalid_argument("space-to-depth form of a grouped or unevenly strided layer");
  const int64_t b = L.sh;
  ConvLayer R = withPaddingOnTheHost(L);
  R.host.space_to_depth = b;
  const int64_t hp = L.h + L.pad_top + L.pad_bottom, wp = L.w + L.pad_left + L.pad_right;
  R.c = L.c * b * b;
  R.h = (hp + b - 1) / b;
  R.w = (wp + b - 1) / b;
  R.kh = (L.kh + b - 1) / b;
  R.kw = (L.kw + b - 1) / b;
  R.sh = R.sw = 1;
  R.pad_top = R.pad_left = R.pad_bottom = R.pad_right = 0;
  // w'[o][(c*b + dy)*b + dx][ky'][kx'] = w[o][c][ky'*b + dy][kx'*b + dx], zero past the window.
  R.weights.assign(static_cast<size_t>(R.o * R.c * R.kh * R.kw), 0);
  for (int64_t o = 0; o < L.o; ++o)
    for (int64_t c = 0; c < L.c; ++c)
      for (int64_t ky = 0; ky < L.kh; ++ky)
        for (int64_t kx = 0; kx < L.kw; ++kx) {
          const int64_t rc = (c * b + ky % b) * b + kx % b;
          R.weights[static_cast<size_t>(((o * R.c + rc) * R.kh + ky / b) * R.kw + kx / b)] =
              L.weights[static_cast<size_t>(((o * L.c + c) * L.kh + ky) * L.kw + kx)];
        }
  return R;
}

int64_t columnUnfoldOf(const ConvLayer& L, const hw::HwConfig& cfg) {
  if (L.group != 1 || L.sw != 1 || L.dilation_w != 1 || L.kw < 2 || L.c < 1) return 1;
  const int64_t u = std::min<int64_t>(int64_t(cfg.block_in) / L.c, L.kw);
  return u >= 2 ? u : 1;
}

ConvLayer toColumnUnfoldedLayer(const ConvLayer& L, int64_t u) {
  if (L.group != 1 || L.sw != 1 || L.dilation_w != 1 || u < 2)
    throw std::invalid_argument("column unfold of a grouped, x-strided or already unfolded layer, or by less than 2");
  ConvLayer R = withPaddingOnTheHost(L);
  R.h = L.h + L.pad_top + L.pad_bottom;
  R.w = L.w + L.pad_left + L.pad_right;
  R.pad_top = R.pad_left = R.pad_bottom = R.pad_right = 0;
  R.host.unfold_columns = u;
  R.c = L.c * u;
  R.kw = (L.kw + u - 1) / u;
  R.dilation_w = u;
  // w'[o][j*C + c][ky][t] = w[o][c][ky][t*u + j], zero past the kernel row.
  R.weights.assign(static_cast<size_t>(R.o * R.c * R.kh * R.kw), 0);
  for (int64_t o = 0; o < L.o; ++o)
    for (int64_t c = 0; c < L.c; ++c)
      for (int64_t ky = 0; ky < L.kh; ++ky)
        for (int64_t kx = 0; kx < L.kw; ++kx) {
          const int64_t j = kx % u, t = kx / u;
          R.weights[static_cast<size_t>(((o * R.c + j * L.c + c) * R.kh + ky) * R.kw + t)] =
              L.weights[static_cast<size_t>(((o * L.c + c) * L.kh + ky) * L.kw + kx)];
        }
  return R;
}

BlockRange inputBlocksOf(const ConvLayer& L, int64_t ocb, int64_t bi, int64_t bo) {
  const int64_t cb_count = (L.c + bi - 1) / bi;
  if (L.group <= 1) return {0, cb_count};
  const int64_t o_per_g = L.o / L.group, c_per_g = L.c / L.group;
  const int64_t o_first = ocb * bo, o_last = std::min(L.o, (ocb + 1) * bo) - 1;
  const int64_t c_first = (o_first / o_per_g) * c_per_g, c_last = (o_last / o_per_g + 1) * c_per_g - 1;
  return {c_first / bi, c_last / bi - c_first / bi + 1};
}

int64_t maxInputBlocks(const ConvLayer& L, int64_t bi, int64_t bo) {
  int64_t m = 0;
  for (int64_t ocb = 0; ocb < (L.o + bo - 1) / bo; ++ocb) m = std::max(m, inputBlocksOf(L, ocb, bi, bo).count);
  return m;
}

int64_t configInterleave(const hw::HwConfig& cfg) {
  if (cfg.batch != 1 || cfg.block_in <= cfg.block_out || cfg.block_in % cfg.block_out) return 1;
  return cfg.block_in / cfg.block_out;
}

int64_t outputInterleave(const ConvLayer& L, const hw::HwConfig& cfg) {
  const int64_t G = configInterleave(cfg), BO = cfg.block_out;
  if (G == 1 || L.group == 1) return G;
  // A grouped layer: the blocks of each group of G read the same input
  // blocks (a block past the channels, zero weights, reads its group's).
  const int64_t OCB = (L.o + BO - 1) / BO;
  for (int64_t ocb = 0; ocb < OCB; ocb += G) {
    const BlockRange first = inputBlocksOf(L, ocb, cfg.block_in, cfg.block_out);
    for (int64_t k = 1; k < G && ocb + k < OCB; ++k) {
      const BlockRange other = inputBlocksOf(L, ocb + k, cfg.block_in, cfg.block_out);
      if (other.first != first.first || other.count != first.count) return 1;
    }
  }
  return G;
}

int64_t outputBlocks(const ConvLayer& L, const hw::HwConfig& cfg) {
  const int64_t G = outputInterleave(L, cfg);
  return (L.o + G * cfg.block_out - 1) / (G * cfg.block_out) * G;
}

ConvLayer toIm2colLayer(const ConvLayer& L) {
  if (L.group != 1) throw std::invalid_argument("im2col form of a grouped convolution");
  ConvLayer R = withPaddingOnTheHost(L);  // im2col reads the padded image
  R.host.im2col = true;
  R.host.kh = L.kh;
  R.host.kw = L.kw;
  R.host.sh = L.sh;
  R.host.sw = L.sw;
  R.c = L.c * L.kh * L.kw;
  R.h = L.oh;
  R.w = L.ow;
  R.kh = R.kw = R.sh = R.sw = 1;
  R.pad_top = R.pad_left = R.pad_bottom = R.pad_right = 0;
  // [o][c][kh][kw] is already [o][c*kh*kw] in the im2col channel order.
  return R;
}

}  // namespace vdla::accel
