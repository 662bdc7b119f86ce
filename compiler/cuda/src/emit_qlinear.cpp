// Integer matrix products (MatMulInteger, QLinearMatMul, com.microsoft.QGemm),
// the quantised element-wise contrib operators (com.microsoft.QLinearAdd,
// QLinearMul) and com.microsoft.QLinearGlobalAveragePool, with the reference
// kernels' arithmetic (runtime/src/kernels/reference/matmul.cpp, quantize.cpp,
// pool.cpp). Float steps of the requantisation use the __f*_rn intrinsics,
// which the compiler never contracts into fused multiply-adds, so each
// rounds as on the CPU; where the reference itself uses fma, so does the kernel.
#include "kernel_spec.h"

namespace vdla::cuda {

namespace {

bool isInt8(rt::DType t) { return t == rt::DType::I8 || t == rt::DType::U8; }

std::string arg(rt::DType t, const std::string& name, bool out = false) {
  return std::string(out ? "" : "const ") + cudaTypeName(t) + "* __restrict__ " + name;
}

std::string quantBounds(rt::DType t) {
  const bool u8 = t == rt::DType::U8;
  return constantF("q_lo", u8 ? 0.0 : -128.0) + constantF("q_hi", u8 ? 255.0 : 127.0);
}

// A per-tensor or per-index parameter (scale or zero point) of `count`
// values: returns 1 for a single value, 2 for `count` of them.
int paramKind(const StepContext& ctx, size_t input, int64_t count, rt::DType type, const std::string& what) {
  const rt::ArtifactTensor& t = ctx.input(input);
  ctx.require(t.type.dtype == type,
              what + " has element type " + rt::dtypeName(t.type.dtype) + ", expected " + rt::dtypeName(type));
  const int64_t n = rt::numElements(t.type.shape);
  ctx.require(n == 1 || n == count,
              what + " has " + std::to_string(n) + " values, expected 1 or " + std::to_string(count));
  return n == 1 ? 1 : 2;
}

// "name[0]" or "name[index]" by kind (1 or 2).
std::string at(const std::string& name, int kind, const std::string& index) {
  return name + "[" + (kind == 2 ? index : "0") + "]";
}

// ---------------------------------------------------------------- matrix products

// numpy.matmul geometry with 1-D operands promoted, as the reference.
struct MatMulGeometry {
  int64_t m, k, n;
  rt::Shape batch;
  std::vector<int64_t> a_bstr, b_bstr;  // per batch dimension, 0 where broadcast
};

MatMulGeometry matMulGeometry(const StepContext& ctx, const rt::Shape& a, const rt::Shape& b) {
  ctx.require(!a.empty() && !b.empty(), "operands must have rank >= 1");
  const rt::Shape a2 = a.size() == 1 ? rt::Shape{1, a[0]} : a;
  const rt::Shape b2 = b.size() == 1 ? rt::Shape{b[0], 1} : b;
  MatMulGeometry g;
  g.m = a2[a2.size() - 2];
  g.k = a2.back();
  g.n = b2.back();
  ctx.require(b2[b2.size() - 2] == g.k,
              "inner dimensions of " + rt::shapeToString(a) + " and " + rt::shapeToString(b) + " differ");
  const rt::Shape ab(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
  const size_t rank = std::max(ab.size(), bb.size());
  g.batch.assign(rank, 1);
  g.a_bstr.assign(rank, 0);
  g.b_bstr.assign(rank, 0);
  int64_t as = g.m * g.k, bs = g.k * g.n;
  for (size_t i = rank; i-- > 0;) {
    const int64_t da = i + ab.size() >= rank ? ab[i + ab.size() - rank] : 1;
    const int64_t db = i + bb.size() >= rank ? bb[i + bb.size() - rank] : 1;
    ctx.require(da == db || da == 1 || db == 1,
                "batch dimensions of " + rt::shapeToString(a) + " and " + rt::shapeToString(b) + " do not broadcast");
    g.batch[i] = da == 1 ? db : da;
    g.a_bstr[i] = da == 1 ? 0 : as;
    g.b_bstr[i] = db == 1 ? 0 : bs;
    as *= da;
    bs *= db;
  }
  return g;
}

std::string matMulParams(const MatMulGeometry& g, bool trans_a, bool trans_b, int a_zp_kind, int b_zp_kind) {
  return constant("total", rt::numElements(g.batch) * g.m * g.n) + constant("M", g.m) + constant("N", g.n) +
         constant("K", g.k) + constant("batch_rank", static_cast<int64_t>(g.batch.size())) +
         intArray("batch_dims", g.batch) + intArray("a_bstr", g.a_bstr) + intArray("b_bstr", g.b_bstr) +
         constant("a_row_stride", trans_a ? 1 : g.k) + constant("a_k_stride", trans_a ? g.m : 1) +
         constant("b_col_stride", trans_b ? g.k : 1) + constant("b_k_stride", trans_b ? 1 : g.n) +
         constant("a_zp_kind", a_zp_kind) + constant("b_zp_kind", b_zp_kind);
}

constexpr const char* kLoopHead =
    "for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n"
    "    const int col = i % P::N, row = (i / P::N) % P::M;\n"
    "    (void)col; (void)row;\n";

// MatMulInteger: A, B, a_zero_point?, b_zero_point? -> i32.
// QLinearMatMul: a, a_scale, a_zero_point?, b, b_scale, b_zero_point?, y_scale, y_zero_point? -> u8/i8.
void emitIntegerMatMul(const StepContext& ctx, KernelSpec& k, bool qlinear) {
  const size_t bi = qlinear ? 3 : 1, azi = 2, bzi = qlinear ? 5 : 3;
  const rt::ArtifactTensor& a = ctx.input(0);
  const rt::ArtifactTensor& b = ctx.input(bi);
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.require(isInt8(a.type.dtype), "input A must be u8 or i8");
  ctx.require(isInt8(b.type.dtype), "input B must be u8 or i8");
  ctx.require(qlinear ? isInt8(y.type.dtype) : y.type.dtype == rt::DType::I32,
              qlinear ? "output Y must be u8 or i8" : "output Y must be i32");
  const MatMulGeometry g = matMulGeometry(ctx, a.type.shape, b.type.shape);
  const int azk = ctx.hasInput(azi) ? paramKind(ctx, azi, g.m, a.type.dtype, "a_zero_point") : 0;
  const int bzk = ctx.hasInput(bzi) ? paramKind(ctx, bzi, g.n, b.type.dtype, "b_zero_point") : 0;
  std::string p = matMulParams(g, false, false, azk, bzk);
  const std::string ta = cudaTypeName(a.type.dtype), tb = cudaTypeName(b.type.dtype);
  const std::string azp = azk ? "a_zp" : "(const " + ta + "*)nullptr";
  const std::string bzp = bzk ? "b_zp" : "(const " + tb + "*)nullptr";
  std::string body = kLoopHead;
  body += "    const unsigned sum = vdla::intMatMulSum<P>(i, a, " + azp + ", b, " + bzp + ");\n";
  k.args = {arg(a.type.dtype, "a")};
  if (!qlinear) {
    k.args.push_back(arg(b.type.dtype, "b"));
    if (azk) k.args.push_back(arg(a.type.dtype, "a_zp"));
    if (bzk) k.args.push_back(arg(b.type.dtype, "b_zp"));
    k.args.push_back(arg(rt::DType::I32, "y", true));
    body += "    y[i] = (int)sum;\n  }";
  } else {
    const int ask = paramKind(ctx, 1, g.m, rt::DType::F32, "a_scale");
    const int bsk = paramKind(ctx, 4, g.n, rt::DType::F32, "b_scale");
    const int ysk = paramKind(ctx, 6, g.m, rt::DType::F32, "y_scale");
    const int yzk = ctx.hasInput(7) ? paramKind(ctx, 7, g.m, y.type.dtype, "y_zero_point") : 0;
    p += quantBounds(y.type.dtype);
    k.args.push_back(arg(rt::DType::F32, "a_scale"));
    if (azk) k.args.push_back(arg(a.type.dtype, "a_zp"));
    k.args.push_back(arg(b.type.dtype, "b"));
    k.args.push_back(arg(rt::DType::F32, "b_scale"));
    if (bzk) k.args.push_back(arg(b.type.dtype, "b_zp"));
    k.args.push_back(arg(rt::DType::F32, "y_scale"));
    if (yzk) k.args.push_back(arg(y.type.dtype, "y_zp"));
    k.args.push_back(arg(y.type.dtype, "y", true));
    body += "    const float scale = __fdiv_rn(__fmul_rn(" + at("a_scale", ask, "row") + ", " +
            at("b_scale", bsk, "col") + "), " + at("y_scale", ysk, "row") + ");\n";
    body += "    y[i] = vdla::quantizeTo<" + std::string(cudaTypeName(y.type.dtype)) +
            ">(__fmul_rn((float)(int)sum, scale), " + (yzk ? "(int)" + at("y_zp", yzk, "row") : "0") +
            ", P::q_lo, P::q_hi);\n  }";
  }
  k.params = p;
  k.body = body;
  gridStride(k, rt::numElements(g.batch) * g.m * g.n);
}

// com.microsoft.QGemm: A, a_scale, a_zero_point?, B, b_scale, b_zero_point?, C?, y_scale?, y_zero_point?
// acc = C + sum (a - a_zp)(b - b_zp); scale = alpha * a_scale * b_scale[n] (/ y_scale).
void emitQGemm(const StepContext& ctx, KernelSpec& k) {
  const rt::ArtifactTensor& a = ctx.input(0);
  const rt::ArtifactTensor& b = ctx.input(3);
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.require(a.type.shape.size() == 2 && b.type.shape.size() == 2, "A and B must be 2-D");
  ctx.require(isInt8(a.type.dtype) && isInt8(b.type.dtype), "inputs A and B must be u8 or i8");
  const bool trans_a = ctx.attrs().getInt("transA", 0) != 0, trans_b = ctx.attrs().getInt("transB", 0) != 0;
  const rt::Shape& as = a.type.shape;
  const rt::Shape& bs = b.type.shape;
  MatMulGeometry g;
  g.m = trans_a ? as[1] : as[0];
  g.k = trans_a ? as[0] : as[1];
  g.n = trans_b ? bs[0] : bs[1];
  ctx.require((trans_b ? bs[1] : bs[0]) == g.k, "inner dimensions of A and B differ");
  ctx.require(y.type.shape == rt::Shape{g.m, g.n}, "output Y must be [M, N]");
  paramKind(ctx, 1, 1, rt::DType::F32, "a_scale");
  const int azk = ctx.hasInput(2) ? paramKind(ctx, 2, 1, a.type.dtype, "a_zero_point") : 0;
  const int bsk = paramKind(ctx, 4, g.n, rt::DType::F32, "b_scale");
  const int bzk = ctx.hasInput(5) ? paramKind(ctx, 5, g.n, b.type.dtype, "b_zero_point") : 0;
  const bool has_c = ctx.hasInput(6), quantised = ctx.hasInput(7);
  std::string p = matMulParams(g, trans_a, trans_b, azk, bzk);
  int64_t c_row = 0, c_col = 0;
  if (has_c) {
    const rt::Shape& cs = ctx.input(6).type.shape;
    ctx.require(ctx.input(6).type.dtype == rt::DType::I32, "input C must be i32");
    ctx.require(cs.size() <= 2, "C must have rank <= 2");
    const rt::Shape c2 = cs.size() == 2 ? cs : cs.size() == 1 ? rt::Shape{1, cs[0]} : rt::Shape{1, 1};
    ctx.require((c2[0] == 1 || c2[0] == g.m) && (c2[1] == 1 || c2[1] == g.n), "C does not broadcast to [M, N]");
    c_row = c2[0] == 1 ? 0 : c2[1];
    c_col = c2[1] == 1 ? 0 : 1;
  }
  p += constant("c_row", c_row) + constant("c_col", c_col) +
       constantF("alpha", static_cast<float>(ctx.attrs().getFloat("alpha", 1.0)));
  const std::string ta = cudaTypeName(a.type.dtype), tb = cudaTypeName(b.type.dtype);
  k.args = {arg(a.type.dtype, "a"), arg(rt::DType::F32, "a_scale")};
  if (azk) k.args.push_back(arg(a.type.dtype, "a_zp"));
  k.args.push_back(arg(b.type.dtype, "b"));
  k.args.push_back(arg(rt::DType::F32, "b_scale"));
  if (bzk) k.args.push_back(arg(b.type.dtype, "b_zp"));
  if (has_c) k.args.push_back(arg(rt::DType::I32, "c"));
  std::string body = kLoopHead;
  body += "    unsigned sum = vdla::intMatMulSum<P>(i, a, " + std::string(azk ? "a_zp" : "(const " + ta + "*)nullptr") +
          ", b, " + (bzk ? "b_zp" : "(const " + tb + "*)nullptr") + ");\n";
  if (has_c) body += "    sum += (unsigned)c[row * P::c_row + col * P::c_col];\n";
  body += "    float scale = __fmul_rn(__fmul_rn(P::alpha, a_scale[0]), " + at("b_scale", bsk, "col") + ");\n";
  if (quantised) {
    ctx.require(y.type.dtype == a.type.dtype, "a quantised output Y must have A's type");
    paramKind(ctx, 7, 1, rt::DType::F32, "y_scale");
    const int yzk = ctx.hasInput(8) ? paramKind(ctx, 8, 1, y.type.dtype, "y_zero_point") : 0;
    p += quantBounds(y.type.dtype);
    k.args.push_back(arg(rt::DType::F32, "y_scale"));
    if (yzk) k.args.push_back(arg(y.type.dtype, "y_zp"));
    body += "    scale = __fdiv_rn(scale, y_scale[0]);\n";
    body += "    y[i] = vdla::quantizeTo<" + std::string(cudaTypeName(y.type.dtype)) +
            ">(__fmul_rn((float)(int)sum, scale), " + (yzk ? "(int)y_zp[0]" : "0") + ", P::q_lo, P::q_hi);\n  }";
  } else {
    ctx.require(!ctx.hasInput(8), "y_zero_point without y_scale");
    ctx.requireF32(y, "output Y");
    body += "    y[i] = __fmul_rn((float)(int)sum, scale);\n  }";
  }
  k.args.push_back(arg(y.type.dtype, "y", true));
  k.params = p;
  k.body = body;
  gridStride(k, g.m * g.n);
}

// ---------------------------------------------------------------- element-wise and pooling

// com.microsoft.QLinearAdd / QLinearMul: A, A_scale, A_zero_point?, B, B_scale, B_zero_point?, C_scale, C_zero_point?
void emitQLinearBinary(const StepContext& ctx, KernelSpec& k, bool mul) {
  const rt::ArtifactTensor& a = ctx.input(0);
  const rt::ArtifactTensor& b = ctx.input(3);
  const rt::ArtifactTensor& y = ctx.output(0);
  const rt::DType t = a.type.dtype;
  ctx.require(isInt8(t), "input A must be u8 or i8");
  ctx.require(b.type.dtype == t && y.type.dtype == t, "A, B and C must have the same type");
  for (size_t i : {1, 4, 6}) paramKind(ctx, i, 1, rt::DType::F32, "scale input " + std::to_string(i));
  const bool za = ctx.hasInput(2), zb = ctx.hasInput(5), zc = ctx.hasInput(7);
  for (size_t i : {2, 5, 7})
    if (ctx.hasInput(i)) paramKind(ctx, i, 1, t, "zero point input " + std::to_string(i));
  const rt::Shape& ys = y.type.shape;
  const std::vector<int64_t> a_str = broadcastStrides(ctx, a.type.shape, ys);
  const std::vector<int64_t> b_str = broadcastStrides(ctx, b.type.shape, ys);
  const int64_t total = rt::numElements(ys);
  k.params = constant("total", total) + constant("rank", static_cast<int64_t>(ys.size())) + intArray("dims", ys) +
             intArray("a_str", a_str) + intArray("b_str", b_str) +
             constantB("same_shape", a.type.shape == ys && b.type.shape == ys) + quantBounds(t);
  k.args = {arg(t, "a"), arg(rt::DType::F32, "sa")};
  if (za) k.args.push_back(arg(t, "a_zp"));
  k.args.push_back(arg(t, "b"));
  k.args.push_back(arg(rt::DType::F32, "sb"));
  if (zb) k.args.push_back(arg(t, "b_zp"));
  k.args.push_back(arg(rt::DType::F32, "sc"));
  if (zc) k.args.push_back(arg(t, "c_zp"));
  k.args.push_back(arg(t, "y", true));
  std::string body = std::string("const int za = ") + (za ? "(int)a_zp[0]" : "0") +
                     ", zb = " + (zb ? "(int)b_zp[0]" : "0") + ", zc = " + (zc ? "(int)c_zp[0]" : "0") + ";\n  ";
  const std::string tn = cudaTypeName(t);
  if (!mul) {
    // The fixed part folded from the zero points, then two fused multiply-adds.
    body +=
        "const float ra = __fdiv_rn(sa[0], sc[0]), rb = __fdiv_rn(sb[0], sc[0]);\n"
        "  const float fixed = __fsub_rn((float)zc, __fadd_rn(__fmul_rn(ra, (float)za), __fmul_rn(rb, (float)zb)));\n";
  }
  body +=
      "  for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n"
      "    int ia, ib;\n    vdla::broadcastOffsets<P>(i, ia, ib);\n";
  if (!mul)
    body +=
        "    const float v = fmaf((float)a[ia], ra, fmaf((float)b[ib], rb, fixed));\n"
        "    y[i] = vdla::quantizeTo<" +
        tn + ">(v, 0, P::q_lo, P::q_hi);\n  }";
  else
    body +=
        "    const float va = __fmul_rn(sa[0], (float)((int)a[ia] - za));\n"
        "    const float vb = __fmul_rn(sb[0], (float)((int)b[ib] - zb));\n"
        "    y[i] = vdla::quantizeTo<" +
        tn + ">(__fdiv_rn(__fmul_rn(va, vb), sc[0]), zc, P::q_lo, P::q_hi);\n  }";
  k.body = body;
  gridStride(k, total);
}

// com.microsoft.QLinearGlobalAveragePool: X, x_scale, x_zero_point?, y_scale, y_zero_point?
// sum = sum(x) - x_zp * image in int32; y = quantise(sum * (x_scale / (y_scale * image))).
void emitQLinearGlobalAveragePool(const StepContext& ctx, KernelSpec& k) {
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& y = ctx.output(0);
  const rt::DType t = x.type.dtype;
  ctx.require(isInt8(t), "input X must be u8 or i8");
  ctx.require(y.type.dtype == t, "output Y must have X's type");
  const rt::Shape& xs = x.type.shape;
  ctx.require(xs.size() >= 3, "input must have rank >= 3");
  paramKind(ctx, 1, 1, rt::DType::F32, "x_scale");
  paramKind(ctx, 3, 1, rt::DType::F32, "y_scale");
  const bool zx = ctx.hasInput(2), zy = ctx.hasInput(4);
  if (zx) paramKind(ctx, 2, 1, t, "x_zero_point");
  if (zy) paramKind(ctx, 4, 1, t, "y_zero_point");
  const bool channels_last = ctx.attrs().getInt("channels_last", 0) != 0;
  const int64_t batch = xs[0], channels = channels_last ? xs.back() : xs[1];
  const int64_t image = rt::numElements(xs) / std::max<int64_t>(batch * channels, 1);
  const int64_t total = batch * channels;
  k.params = constant("total", total) + constant("C", channels) + constant("image", image) +
             constantB("channels_last", channels_last) + quantBounds(t);
  k.args = {arg(t, "x"), arg(rt::DType::F32, "x_scale")};
  if (zx) k.args.push_back(arg(t, "x_zp"));
  k.args.push_back(arg(rt::DType::F32, "y_scale"));
  if (zy) k.args.push_back(arg(t, "y_zp"));
  k.args.push_back(arg(t, "y", true));
  k.body = std::string("const float scale = __fdiv_rn(x_scale[0], __fmul_rn(y_scale[0], (float)P::image));\n") +
           "  for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n"
           "    const int n = i / P::C, c = i % P::C;\n"
           "    int sum = -" +
           (zx ? "(int)x_zp[0]" : "0") +
           " * P::image;\n"
           "    for (int j = 0; j < P::image; ++j)\n"
           "      sum += (int)x[P::channels_last ? (n * P::image + j) * P::C + c : i * P::image + j];\n"
           "    y[i] = vdla::quantizeTo<" +
           cudaTypeName(t) + ">(__fmul_rn((float)sum, scale), " + (zy ? "(int)y_zp[0]" : "0") +
           ", P::q_lo, P::q_hi);\n  }";
  gridStride(k, total);
}

}  // namespace

bool emitIntegerOp(const StepContext& ctx, KernelSpec& k) {
  if (ctx.op == "MatMulInteger" || ctx.op == "QLinearMatMul") {
    emitIntegerMatMul(ctx, k, ctx.op == "QLinearMatMul");
    return true;
  }
  if (ctx.op == "com.microsoft.QGemm") {
    emitQGemm(ctx, k);
    return true;
  }
  if (ctx.op == "com.microsoft.QLinearAdd" || ctx.op == "com.microsoft.QLinearMul") {
    emitQLinearBinary(ctx, k, ctx.op == "com.microsoft.QLinearMul");
    return true;
  }
  if (ctx.op == "com.microsoft.QLinearGlobalAveragePool") {
    emitQLinearGlobalAveragePool(ctx, k);
    return true;
  }
  return emitIntegerConv(ctx, k);
}

}  // namespace vdla::cuda
