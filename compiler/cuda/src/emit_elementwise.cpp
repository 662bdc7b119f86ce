// Elementwise steps: unary functions, Add/Sub/Mul/Div with numpy broadcasting
// and fused activation, Clip, Cast, and inference BatchNormalization. The body of a
// unary kernel is one expression the generator writes in terms of `v`.
#include <map>
#include <utility>

#include "kernel_spec.h"

namespace vdla::cuda {

namespace {

bool isSignedOrFloat(rt::DType t) {
  return t == rt::DType::F32 || t == rt::DType::I8 || t == rt::DType::I32 || t == rt::DType::I64;
}

// The expression of a unary operator; `ctx` gives its attributes. Empty when
// `op` is not unary.
std::string unaryExpression(const StepContext& ctx, rt::DType t) {
  const std::string& op = ctx.op;
  if (op == "Relu") return "v > (T)0 ? v : (T)0";
  if (op == "Neg") return "(T)(-v)";
  if (op == "Abs") return "v < (T)0 ? (T)(-v) : v";
  static const std::map<std::string, std::string> f32 = {
      {"Sigmoid", "1.0f / (1.0f + expf(-v))"},
      {"Tanh", "tanhf(v)"},
      {"Exp", "expf(v)"},
      {"Sqrt", "sqrtf(v)"},
      {"Reciprocal", "1.0f / v"},
      {"HardSwish", "v * fmaxf(0.0f, fminf(1.0f, v / 6.0f + 0.5f))"}};
  auto it = f32.find(op);
  std::string e;
  if (it != f32.end()) {
    e = it->second;
  } else if (op == "LeakyRelu") {
    e = "v >= 0.0f ? v : " + floatLiteral(ctx.attrs().getFloat("alpha", 0.01)) + " * v";
  } else if (op == "HardSigmoid") {
    e = "fmaxf(0.0f, fminf(1.0f, " + floatLiteral(ctx.attrs().getFloat("alpha", 0.2)) + " * v + " +
        floatLiteral(ctx.attrs().getFloat("beta", 0.5)) + "))";
  } else {
    return "";
  }
  ctx.require(t == rt::DType::F32, std::string("element type ") + rt::dtypeName(t) + " is not supported (f32 only)");
  return e;
}

void emitUnary(const StepContext& ctx, KernelSpec& k, const std::string& expr) {
  const rt::DType t = ctx.input(0).type.dtype;
  ctx.require(isSignedOrFloat(t), std::string("element type ") + rt::dtypeName(t) + " is not supported");
  const std::string tn = cudaTypeName(t);
  const int64_t total = rt::numElements(ctx.output(0).type.shape);
  k.params = constant("total", total);
  k.args = {"const " + tn + "* __restrict__ x", tn + "* __restrict__ y"};
  k.body = "using T = " + tn + ";\n  for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n" +
           "    const T v = x[i];\n    y[i] = " + expr + ";\n  }";
  gridStride(k, total);
}

void emitBinary(const StepContext& ctx, KernelSpec& k) {
  const rt::ArtifactTensor& a = ctx.input(0);
  const rt::ArtifactTensor& b = ctx.input(1);
  const rt::ArtifactTensor& y = ctx.output(0);
  const rt::DType t = a.type.dtype;
  ctx.require(b.type.dtype == t && y.type.dtype == t, "operand and output types must agree");
  ctx.require(
      t == rt::DType::F32 || t == rt::DType::I32 || t == rt::DType::I64 || t == rt::DType::I8 || t == rt::DType::U8,
      std::string("element type ") + rt::dtypeName(t) + " is not supported");
  ctx.require(ctx.op != "Div" || t == rt::DType::F32, "integer Div is not supported (f32 only)");
  ctx.require(t == rt::DType::F32 || !ctx.attrs().has("activation"), "a fused activation needs f32 operands");
  const rt::Shape& ys = y.type.shape;
  const size_t rank = ys.size();
  const int64_t total = rt::numElements(ys);
  std::string p = constant("total", total) + constant("rank", static_cast<int64_t>(rank)) + intArray("dims", ys) +
                  intArray("a_str", broadcastStrides(ctx, a.type.shape, ys)) +
                  intArray("b_str", broadcastStrides(ctx, b.type.shape, ys)) +
                  constantB("same_shape", a.type.shape == ys && b.type.shape == ys);
  if (t == rt::DType::F32) p += activationParams(ctx);
  k.params = p;
  const std::string tn = cudaTypeName(t);
  k.args = {"const " + tn + "* __restrict__ a", "const " + tn + "* __restrict__ b", tn + "* __restrict__ y"};
  const std::map<std::string, std::string> ops = {{"Add", "+"}, {"Sub", "-"}, {"Mul", "*"}, {"Div", "/"}};
  std::string value = "(T)(a[ia] " + ops.at(ctx.op) + " b[ib])";
  if (t == rt::DType::F32) value = "vdla::activate<P>(" + value + ")";
  k.body = "using T = " + tn + ";\n  for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n" +
           "    int ia, ib;\n    vdla::broadcastOffsets<P>(i, ia, ib);\n    y[i] = " + value + ";\n  }";
  gridStride(k, total);
}

// Clip(x, min?, max?); before opset 11 the bounds are attributes.
void emitClip(const StepContext& ctx, KernelSpec& k) {
  const rt::DType t = ctx.input(0).type.dtype;
  ctx.require(isSignedOrFloat(t) || t == rt::DType::U8,
              std::string("element type ") + rt::dtypeName(t) + " is not supported");
  const std::string tn = cudaTypeName(t);
  const int64_t total = rt::numElements(ctx.output(0).type.shape);
  std::string p = constant("total", total);
  k.args = {"const " + tn + "* __restrict__ x"};
  std::string lo = "", hi = "";
  if (ctx.hasInput(1)) {
    k.args.push_back("const " + tn + "* __restrict__ lo");
    lo = "*lo";
  } else if (ctx.attrs().has("min")) {
    lo = "(T)" + floatLiteral(ctx.attrs().getFloat("min"));
  }
  if (ctx.hasInput(2)) {
    k.args.push_back("const " + tn + "* __restrict__ hi");
    hi = "*hi";
  } else if (ctx.attrs().has("max")) {
    hi = "(T)" + floatLiteral(ctx.attrs().getFloat("max"));
  }
  for (int i : {1, 2})
    if (ctx.hasInput(i))
      ctx.require(ctx.input(i).type.dtype == t && rt::numElements(ctx.input(i).type.shape) == 1,
                  "Clip bounds must be scalars of the input's type");
  k.params = p;
  k.args.push_back(tn + "* __restrict__ y");
  std::string body =
      "using T = " + tn +
      ";\n  for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n    T v = x[i];\n";
  // min(max(x, lo), hi), NaN kept, as the reference.
  if (!lo.empty()) body += "    { const T l = " + lo + "; v = v < l ? l : v; }\n";
  if (!hi.empty()) body += "    { const T h = " + hi + "; v = h < v ? h : v; }\n";
  body += "    y[i] = v;\n  }";
  k.body = body;
  gridStride(k, total);
}

void emitBatchNorm(const StepContext& ctx, KernelSpec& k) {
  const rt::Shape& xs = ctx.input(0).type.shape;
  for (size_t i = 0; i < 5; ++i) ctx.requireF32(ctx.input(i), "inputs");
  ctx.require(xs.size() >= 2, "input must have rank >= 2");
  for (size_t i = 1; i < 5; ++i)
    ctx.require(rt::numElements(ctx.input(i).type.shape) == xs[1], "scale, B, mean and var need one value per channel");
  ctx.require(ctx.numOutputs() == 1, "training-mode outputs (running mean/var) are not supported");
  int64_t inner = 1;
  for (size_t d = 2; d < xs.size(); ++d) inner *= xs[d];
  const int64_t total = rt::numElements(xs);
  k.params = constant("total", total) + constant("C", xs[1]) + constant("inner", inner) +
             constantF("epsilon", ctx.attrs().getFloat("epsilon", 1e-5));
  k.args = {"const float* __restrict__ x",    "const float* __restrict__ scale", "const float* __restrict__ bias",
            "const float* __restrict__ mean", "const float* __restrict__ var",   "float* __restrict__ y"};
  k.body = "vdla::batchNorm<P>(x, scale, bias, mean, var, y);";
  gridStride(k, total);
}

// The integer bounds of an element type as CUDA C++ literals.
std::pair<std::string, std::string> integerBounds(rt::DType t) {
  switch (t) {
    case rt::DType::I8: return {"-128", "127"};
    case rt::DType::U8: return {"0", "255"};
    case rt::DType::I32: return {"(-2147483647 - 1)", "2147483647"};
    case rt::DType::I64: return {"(-9223372036854775807LL - 1)", "9223372036854775807LL"};
    default: return {"0", "0"};
  }
}

// Cast to the output's element type with the reference kernel's rules: to
// bool is `v != 0`; float to integer truncates toward zero, saturates at the
// type's bounds and maps NaN to 0 (the comparisons are in double, which holds
// every int32 bound exactly; the saturated values are integer literals, so
// the int64 maximum, which double cannot hold, is exact); everything else is
// the C++ conversion.
void emitCast(const StepContext& ctx, KernelSpec& k) {
  const rt::DType from = ctx.input(0).type.dtype, to = ctx.output(0).type.dtype;
  const std::string fn = cudaTypeName(from), tn = cudaTypeName(to);
  std::string value;
  if (to == rt::DType::Bool) {
    value = "v != (From)0";
  } else if (from == rt::DType::F32 && to != rt::DType::F32) {
    const auto [lo, hi] = integerBounds(to);
    value = "isnan(v) ? (To)0 : (trunc((double)v) <= (double)" + lo + " ? (To)" + lo +
            " : (trunc((double)v) >= (double)" + hi + " ? (To)" + hi + " : (To)trunc((double)v)))";
  } else {
    value = "(To)v";
  }
  const int64_t total = rt::numElements(ctx.output(0).type.shape);
  k.params = constant("total", total);
  k.args = {"const " + fn + "* __restrict__ x", tn + "* __restrict__ y"};
  k.body = "using From = " + fn + ";\n  using To = " + tn +
           ";\n  for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n" +
           "    const From v = x[i];\n    y[i] = " + value + ";\n  }";
  gridStride(k, total);
}

}  // namespace

bool emitElementwise(const StepContext& ctx, KernelSpec& k) {
  const std::string& op = ctx.op;
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    emitBinary(ctx, k);
    return true;
  }
  if (op == "Clip") {
    emitClip(ctx, k);
    return true;
  }
  if (op == "BatchNormalization") {
    emitBatchNorm(ctx, k);
    return true;
  }
  if (op == "Cast") {
    emitCast(ctx, k);
    return true;
  }
  const std::string e = unaryExpression(ctx, ctx.input(0).type.dtype);
  if (e.empty()) return false;
  emitUnary(ctx, k, e);
  return true;
}

}  // namespace vdla::cuda
