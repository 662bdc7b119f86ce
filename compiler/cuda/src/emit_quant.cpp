// QuantizeLinear and DequantizeLinear, per tensor or per axis, with the
// reference kernels' arithmetic (runtime/src/kernels/reference/quantize.cpp):
//   QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point)
//   DequantizeLinear: y = (x - x_zero_point) * x_scale
// in float, so the division and the product round as on the CPU (NVRTC's
// default IEEE division, no fast math), and rintf rounds half to even.
#include <utility>

#include "kernel_spec.h"

namespace vdla::cuda {

namespace {

bool isQuantised(rt::DType t) { return t == rt::DType::I8 || t == rt::DType::U8; }

// The axis of a per-axis scale as (inner, size), or (1, 1) for a scalar one:
// the parameter index of element i is (i / inner) % size.
std::pair<int64_t, int64_t> axisOf(const StepContext& ctx, const rt::Shape& x) {
  const rt::Shape& scale = ctx.input(1).type.shape;
  ctx.require(ctx.attrs().getInt("block_size", 0) == 0,
              "attribute 'block_size' (blocked quantisation) is not supported");
  if (rt::numElements(scale) == 1 && scale.size() <= 1) return {1, 1};
  ctx.require(scale.size() == 1, "a per-axis scale must be 1-D");
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = ctx.attrs().getInt("axis", 1);
  if (axis < 0) axis += rank;
  ctx.require(axis >= 0 && axis < rank,
              "axis " + std::to_string(ctx.attrs().getInt("axis", 1)) + " is outside rank " + std::to_string(rank));
  ctx.require(scale[0] == x[static_cast<size_t>(axis)], "the scale has " + std::to_string(scale[0]) + " values, axis " +
                                                            std::to_string(axis) + " has " +
                                                            std::to_string(x[static_cast<size_t>(axis)]));
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x[static_cast<size_t>(d)];
  return {inner, scale[0]};
}

void emitQuantize(const StepContext& ctx, KernelSpec& k, bool quantize) {
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& y = ctx.output(0);
  const rt::DType q = quantize ? y.type.dtype : x.type.dtype;  // the integer side
  ctx.require(isQuantised(q), std::string("the quantised type must be u8 or i8, got ") + rt::dtypeName(q));
  if (quantize)
    ctx.require(x.type.dtype == rt::DType::F32 || x.type.dtype == rt::DType::I32, "input x must be f32 or i32");
  else
    ctx.requireF32(y, "output");
  ctx.requireF32(ctx.input(1), "scale");
  const bool has_zp = ctx.hasInput(2);
  if (has_zp) ctx.require(ctx.input(2).type.dtype == q, "the zero point's type must be the quantised type");
  const auto [inner, size] = axisOf(ctx, x.type.shape);
  if (has_zp)
    ctx.require(rt::numElements(ctx.input(2).type.shape) == size, "the zero point needs as many values as the scale");
  const int64_t total = rt::numElements(x.type.shape);
  k.params = constant("total", total) + constant("inner", inner) + constant("size", size);
  const std::string qn = cudaTypeName(q), xn = cudaTypeName(x.type.dtype);
  k.args = {"const " + xn + "* __restrict__ x", "const float* __restrict__ scale"};
  if (has_zp) k.args.push_back("const " + qn + "* __restrict__ zero_point");
  k.args.push_back(std::string(quantize ? qn : "float") + "* __restrict__ y");
  const std::string zp = has_zp ? "(float)zero_point[c]" : "0.0f";
  std::string body =
      "for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n"
      "    const int c = P::size == 1 ? 0 : (i / P::inner) % P::size;\n";
  if (quantize) {
    const bool u8 = q == rt::DType::U8;
    body += "    float v = rintf((float)x[i] / scale[c]) + " + zp +
            ";\n"
            "    v = fminf(fmaxf(v, " +
            std::string(u8 ? "0.0f" : "-128.0f") + "), " + (u8 ? "255.0f" : "127.0f") +
            ");\n"
            "    y[i] = (" +
            qn + ")v;\n  }";
  } else {
    body += "    y[i] = ((float)x[i] - " + zp + ") * scale[c];\n  }";
  }
  k.body = body;
  gridStride(k, total);
}

}  // namespace

bool emitQuantization(const StepContext& ctx, KernelSpec& k) {
  if (ctx.op == "QuantizeLinear") {
    emitQuantize(ctx, k, true);
    return true;
  }
  if (ctx.op == "DequantizeLinear") {
    emitQuantize(ctx, k, false);
    return true;
  }
  return false;
}

}  // namespace vdla::cuda
