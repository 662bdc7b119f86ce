// Integer convolutions: ConvInteger (int32 sums), QLinearConv (requantised
// as onnxruntime does) and vdla.QConv (the accelerator's integer
// requantisation), all on the integer implicit GEMM of device/integer.cuh with
// the reference kernels' arithmetic (runtime/src/kernels/reference/conv.cpp
// and vdla_qconv.cpp).
#include <cmath>

#include "vdla/runtime/qconv_attributes.h"
#include "window.h"

namespace vdla::cuda {

namespace {

struct IntTile {
  int bm, bn, bk, tm, tn;
};

// The fp32 kernel's tiles; the smallest that still fills an H100/H200 (two
// blocks per SM on 132 SMs) is taken first for small layers.
constexpr IntTile kIntTiles[] = {{64, 64, 16, 4, 4}, {64, 32, 16, 4, 2}, {32, 32, 16, 2, 2}};
constexpr int64_t kWantedBlocks = 2 * 132;

bool isInt8(rt::DType t) { return t == rt::DType::I8 || t == rt::DType::U8; }

// Saturation bounds of a quantised output type, as float constants.
std::string quantBounds(rt::DType t) {
  const bool u8 = t == rt::DType::U8;
  return constantF("q_lo", u8 ? 0.0 : -128.0) + constantF("q_hi", u8 ? 255.0 : 127.0);
}

// Geometry members of P shared by the three operators, and the launch.
struct ConvGeometry {
  std::string params;
  int64_t group = 1, mg = 1, ntot = 1;
};

ConvGeometry geometryParams(const Window3& win, const rt::Shape& xs, const rt::Shape& ws, int64_t group) {
  ConvGeometry g;
  g.group = group;
  g.mg = ws[0] / group;
  g.ntot = xs[0] * win.outVolume();
  g.params = constant("N", xs[0]) + constant("C", xs[1]) + constant("M", ws[0]) + windowParams(win) +
             constant("G", group) + constant("CG", ws[1]) + constant("MG", g.mg);
  return g;
}

// "vdla::intConvGemm<P, tile..., >" with the tile that fills the GPU, and the launch.
std::string launchGemm(const StepContext& ctx, const ConvGeometry& g, KernelSpec& k) {
  ctx.require(g.group <= 65535, "more than 65535 groups");
  IntTile t = kIntTiles[0];
  for (const IntTile& cand : kIntTiles) {
    t = cand;
    if (ceilDiv(g.ntot, cand.bn) * ceilDiv(g.mg, cand.bm) * g.group >= kWantedBlocks) break;
  }
  k.block[0] = (t.bm / t.tm) * (t.bn / t.tn);
  k.grid[0] = ceilDiv(g.ntot, t.bn);
  k.grid[1] = ceilDiv(g.mg, t.bm);
  k.grid[2] = g.group;
  return "vdla::intConvGemm<P, " + std::to_string(t.bm) + ", " + std::to_string(t.bn) + ", " + std::to_string(t.bk) +
         ", " + std::to_string(t.tm) + ", " + std::to_string(t.tn) + ">";
}

void checkChannels(const StepContext& ctx, const rt::Shape& xs, const rt::Shape& ws, int64_t group) {
  ctx.require(ws.size() == xs.size(), "weights must have the input's rank");
  ctx.require(group >= 1 && xs[1] == ws[1] * group && ws[0] % group == 0, "channels do not fit the group count");
}

// Kind of a weight zero point: 0 absent, 1 per tensor, 2 per output channel.
int zeroPointKind(const StepContext& ctx, size_t input, int64_t channels, rt::DType type, const char* what) {
  if (!ctx.hasInput(input)) return 0;
  const rt::ArtifactTensor& t = ctx.input(input);
  ctx.require(t.type.dtype == type, std::string(what) + " must have the weights' type");
  const int64_t n = rt::numElements(t.type.shape);
  ctx.require(n == 1 || n == channels, std::string(what) + " needs 1 or " + std::to_string(channels) + " values");
  return n == 1 ? 1 : 2;
}

void requireScalarOf(const StepContext& ctx, size_t input, rt::DType type, const char* what) {
  const rt::ArtifactTensor& t = ctx.input(input);
  ctx.require(t.type.dtype == type, std::string(what) + " has element type " + rt::dtypeName(t.type.dtype) +
                                        ", expected " + rt::dtypeName(type));
  ctx.require(rt::numElements(t.type.shape) == 1, std::string(what) + " must be a single value");
}

std::string arg(rt::DType t, const std::string& name, bool out = false) {
  return std::string(out ? "" : "const ") + cudaTypeName(t) + "* __restrict__ " + name;
}

// ConvInteger: x, w, x_zero_point?, w_zero_point? -> int32.
// QLinearConv: x, x_scale, x_zero_point?, w, w_scale, w_zero_point?, y_scale, y_zero_point?, B? -> u8/i8.
void emitOnnxIntegerConv(const StepContext& ctx, KernelSpec& k, bool qlinear) {
  const size_t wi = qlinear ? 3 : 1, xzi = 2, wzi = qlinear ? 5 : 3;
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& w = ctx.input(wi);
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.require(isInt8(x.type.dtype), "input x must be u8 or i8");
  ctx.require(isInt8(w.type.dtype), "weights w must be u8 or i8");
  if (qlinear)
    ctx.require(isInt8(y.type.dtype), "output y must be u8 or i8");
  else
    ctx.require(y.type.dtype == rt::DType::I32, "output y must be i32");
  const rt::Shape& xs = x.type.shape;
  const rt::Shape& ws = w.type.shape;
  const int64_t group = ctx.attrs().getInt("group", 1);
  checkChannels(ctx, xs, ws, group);
  const Window3 win = resolveWindow3(ctx, xs, y.type.shape, std::vector<int64_t>(ws.begin() + 2, ws.end()));
  const int64_t m = ws[0];
  const bool has_xz = ctx.hasInput(xzi);
  if (has_xz) requireScalarOf(ctx, xzi, x.type.dtype, "x_zero_point");
  const int wz_kind = zeroPointKind(ctx, wzi, m, w.type.dtype, "w_zero_point");

  ConvGeometry g = geometryParams(win, xs, ws, group);
  std::string p = g.params + constant("w_zp_kind", wz_kind);
  const std::string tw = cudaTypeName(w.type.dtype);
  std::string body = "const int xz = " + std::string(has_xz ? "(int)x_zp[0]" : "0") + ";\n  ";
  k.args = {arg(x.type.dtype, "x")};
  if (qlinear) {
    requireScalarOf(ctx, 1, rt::DType::F32, "x_scale");
    requireScalarOf(ctx, 6, rt::DType::F32, "y_scale");
    const int64_t nws = rt::numElements(ctx.input(4).type.shape);
    ctx.require(ctx.input(4).type.dtype == rt::DType::F32 && (nws == 1 || nws == m),
                "w_scale must be f32 with 1 or " + std::to_string(m) + " values");
    const bool has_yz = ctx.hasInput(7), has_bias = ctx.hasInput(8);
    if (has_yz) requireScalarOf(ctx, 7, y.type.dtype, "y_zero_point");
    if (has_bias)
      ctx.require(ctx.input(8).type.dtype == rt::DType::I32 && rt::numElements(ctx.input(8).type.shape) == m,
                  "bias B must be i32 with one value per output channel");
    p += constantB("w_scale_per_channel", nws != 1) + constantB("has_y_zp", has_yz) + constantB("has_bias", has_bias) +
         quantBounds(y.type.dtype);
    k.args.push_back(arg(rt::DType::F32, "x_scale"));
    if (has_xz) k.args.push_back(arg(x.type.dtype, "x_zp"));
    k.args.push_back(arg(w.type.dtype, "w"));
    k.args.push_back(arg(rt::DType::F32, "w_scale"));
    if (wz_kind) k.args.push_back(arg(w.type.dtype, "w_zp"));
    k.args.push_back(arg(rt::DType::F32, "y_scale"));
    if (has_yz) k.args.push_back(arg(y.type.dtype, "y_zp"));
    if (has_bias) k.args.push_back(arg(rt::DType::I32, "b"));
    k.args.push_back(arg(y.type.dtype, "y", true));
    const std::string ty = cudaTypeName(y.type.dtype);
    body += "const vdla::QLinearConvEpilogue<P, " + ty + "> epi{x_scale, w_scale, y_scale, " +
            (has_yz ? "y_zp" : "nullptr") + ", " + (has_bias ? "b" : "nullptr") + ", y};\n  ";
  } else {
    if (has_xz) k.args.push_back(arg(x.type.dtype, "x_zp"));
    k.args.insert(k.args.begin() + 1, arg(w.type.dtype, "w"));
    if (wz_kind) k.args.push_back(arg(w.type.dtype, "w_zp"));
    k.args.push_back(arg(rt::DType::I32, "y", true));
    body += "const vdla::Int32Epilogue epi{y};\n  ";
  }
  k.params = p;
  // Padding holds the input's zero point: its centred value is 0.
  body += launchGemm(ctx, g, k) + "(x, xz, xz, w, " + (wz_kind ? "w_zp" : "(const " + tw + "*)nullptr") + ", epi);";
  k.body = body;
}

// vdla.QConv: X, W, bias1, mult, bias2, R?, residual_mult? -> i8.
void emitVdlaQConv(const StepContext& ctx, KernelSpec& k) {
  rt::QConvAttributes q;
  try {
    q = rt::readQConvAttributes(ctx.attrs());
  } catch (const std::exception& e) {
    ctx.fail(e.what());
  }
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& w = ctx.input(1);
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.require(x.type.dtype == rt::DType::I8 && w.type.dtype == rt::DType::I8 && y.type.dtype == rt::DType::I8,
              "input X, weights W and output Y must be i8");
  const rt::Shape& xs = x.type.shape;
  const rt::Shape& ws = w.type.shape;
  ctx.require(xs.size() == 4, "input X must be [N, C, H, W], got " + rt::shapeToString(xs));
  checkChannels(ctx, xs, ws, q.group);
  const int64_t m = ws[0];
  const bool has_res = ctx.hasInput(5);
  ctx.require(has_res == ctx.hasInput(6), "R and residual_mult must be given together");
  const char* const per_channel[] = {nullptr, nullptr, "bias1", "mult", "bias2", nullptr, "residual_mult"};
  for (size_t i : {2, 3, 4, 6})
    if (i != 6 || has_res)
      ctx.require(ctx.input(i).type.dtype == rt::DType::I32 && ctx.input(i).type.shape == rt::Shape{m},
                  std::string(per_channel[i]) + " must be i32 [" + std::to_string(m) + "]");
  ctx.require(!q.post_add, "post_add (a fused quantised addition) is not compiled for CUDA");
  ctx.require(!(has_res && q.float_requant), "float_requant takes no residual R");
  if (has_res)
    ctx.require(ctx.input(5).type.dtype == rt::DType::I8 && ctx.input(5).type.shape == y.type.shape,
                "residual R must be i8 with the output's shape");
  // A 2-D window with unit depth in front.
  Window3 win{};
  win.in[0] = win.out[0] = win.kernel[0] = win.stride[0] = win.dilation[0] = 1;
  for (int d = 0; d < 2; ++d) {
    win.in[1 + d] = xs[2 + d];
    win.out[1 + d] = y.type.shape[2 + d];
    win.kernel[1 + d] = ws[2 + d];
    win.stride[1 + d] = q.stride[d];
    win.dilation[1 + d] = q.dilation[d];
    win.pad_begin[1 + d] = q.pads[d];
    win.pad_end[1 + d] = q.pads[2 + d];
  }
  ConvGeometry g = geometryParams(win, xs, ws, q.group);
  k.params = g.params + constant("w_zp_kind", 0) + constantB("has_res", has_res) +
             constantB("wide_product", q.wide_product) + constant("shift1", q.shift1) + constant("shift2", q.shift2) +
             constant("residual_shift", q.residual_shift) + constant("clip_lo", q.clip_lo) +
             constant("clip_hi", q.clip_hi) + constantB("float_requant", q.float_requant) +
             constant("y_zero_point", q.y_zero_point);
  k.args = {arg(rt::DType::I8, "x"), arg(rt::DType::I8, "w"), arg(rt::DType::I32, "bias1"), arg(rt::DType::I32, "mult"),
            arg(rt::DType::I32, "bias2")};
  if (has_res) {
    k.args.push_back(arg(rt::DType::I8, "r"));
    k.args.push_back(arg(rt::DType::I32, "residual_mult"));
  }
  k.args.push_back(arg(rt::DType::I8, "y", true));
  // Padding holds x_zero_point; nothing is subtracted (the bias carries it).
  k.body = "const vdla::QConvEpilogue<P> epi{bias1, mult, bias2, " +
           std::string(has_res ? "r, residual_mult" : "nullptr, nullptr") + ", y};\n  " + launchGemm(ctx, g, k) +
           "(x, " + std::to_string(q.x_zero_point) + ", 0, w, (const signed char*)nullptr, epi);";
}

}  // namespace

bool emitIntegerConv(const StepContext& ctx, KernelSpec& k) {
  if (ctx.op == "ConvInteger") {
    emitOnnxIntegerConv(ctx, k, false);
    return true;
  }
  if (ctx.op == "QLinearConv") {
    emitOnnxIntegerConv(ctx, k, true);
    return true;
  }
  if (ctx.op == "vdla.QConv") {
    emitVdlaQConv(ctx, k);
    return true;
  }
  return false;
}

}  // namespace vdla::cuda
