// Conv steps, possibly with a fused residual Add (attribute "cuda.residual",
// set by fuseResidualAdds): inputs X, W, B (may be absent), [residual].
//
// Kernel choice: one input channel per group (depthwise) runs the direct
// kernel; everything else one of the implicit-GEMM variants of
// convKernelNames(), chosen per layer (chooseConvKernel) unless the options
// name one.
#include <algorithm>
#include <stdexcept>

#include "window.h"

namespace vdla::cuda {

namespace {

struct ConvKernelVariant {
  const char* name;
  int bm, bn, bk, tm, tn;
  bool tf32;
};

// The TF32 variant's tile is fixed by its fragments (conv_tf32.cuh).
constexpr ConvKernelVariant kVariants[] = {
    {"tf32-64x64", 64, 64, 16, 0, 0, true},   {"simt-128x128", 128, 128, 8, 8, 8, false},
    {"simt-128x64", 128, 64, 8, 8, 4, false}, {"simt-64x128", 64, 128, 8, 4, 8, false},
    {"simt-64x64", 64, 64, 16, 4, 4, false},  {"simt-64x32", 64, 32, 16, 4, 2, false},
    {"simt-32x32", 32, 32, 16, 2, 2, false},
};
// A grid this large keeps enough of the 132 SMs of an H100/H200 busy for the
// bigger tile's reuse to pay.
constexpr int64_t kBusyBlocks = 132 * 3 / 4;

int64_t blocksOf(const ConvKernelVariant& v, int64_t mg, int64_t ntot, int64_t group) {
  return ceilDiv(ntot, v.bn) * ceilDiv(mg, v.bm) * group;
}

const ConvKernelVariant& variantNamed(const std::string& name) {
  for (const ConvKernelVariant& v : kVariants)
    if (name == v.name) return v;
  throw std::logic_error("no convolution kernel variant '" + name + "'");
}

const ConvKernelVariant& variantNamed(const StepContext& ctx, const std::string& name) {
  std::string names;
  for (const ConvKernelVariant& v : kVariants) {
    if (name == v.name) return v;
    names += std::string(names.empty() ? "" : ", ") + v.name;
  }
  ctx.fail("unknown convolution kernel '" + name + "' (known: " + names + ")");
}

// The choice measured on an H200 (cuda_conv_bench --sweep, every ResNet-18
// layer at batch 1 and 16; docs/performance.md): these layers are too small
// for 128-wide tiles, and a grid that leaves SMs idle costs more than a
// smaller tile's lower reuse. So the 64x64 tile (float4 reads) when its grid
// keeps the GPU busy, else 32x32. With TF32 on, the tensor-core kernel wins
// only on 1x1 convolutions (short K) with a busy grid; elsewhere the SIMT
// kernels were faster than it.
const ConvKernelVariant& chooseConvKernel(const CudaCodegenOptions& o, int64_t mg, int64_t ntot, int64_t group,
                                          bool one_by_one) {
  const ConvKernelVariant& tf32 = variantNamed("tf32-64x64");
  if (o.tf32_tensor_cores && one_by_one && blocksOf(tf32, mg, ntot, group) >= kBusyBlocks) return tf32;
  const ConvKernelVariant& wide = variantNamed("simt-64x64");
  return blocksOf(wide, mg, ntot, group) >= kBusyBlocks ? wide : variantNamed("simt-32x32");
}

}  // namespace

bool emitConv(const StepContext& ctx, KernelSpec& k) {
  if (ctx.op != "Conv") return false;
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& w = ctx.input(1);
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.requireF32(x, "input X");
  ctx.requireF32(w, "weights W");
  ctx.requireF32(y, "output Y");
  const bool has_bias = ctx.hasInput(2);
  const bool has_res = ctx.attrs().getInt("cuda.residual", 0) != 0;
  if (has_bias) ctx.requireF32(ctx.input(2), "bias B");
  if (has_res) {
    ctx.require(ctx.hasInput(3) && ctx.input(3).type.shape == y.type.shape,
                "fused residual must have the output's shape");
    ctx.requireF32(ctx.input(3), "residual");
  }
  const rt::Shape& xs = x.type.shape;
  const rt::Shape& ws = w.type.shape;
  const rt::Shape& ys = y.type.shape;
  ctx.require(ws.size() == xs.size(), "weights must have the input's rank");
  const int64_t group = ctx.attrs().getInt("group", 1);
  ctx.require(group >= 1 && xs[1] == ws[1] * group && ws[0] % group == 0, "channels do not fit the group count");
  const Window3 win = resolveWindow3(ctx, xs, ys, std::vector<int64_t>(ws.begin() + 2, ws.end()));
  const int64_t n = xs[0], c = xs[1], m = ws[0], cg = ws[1], mg = m / group;

  std::string p;
  p += constant("N", n) + constant("C", c) + constant("M", m) + windowParams(win);
  p += constant("G", group) + constant("CG", cg) + constant("MG", mg);
  p += constantB("has_bias", has_bias) + constantB("has_res", has_res);
  p += activationParams(ctx);
  const std::string act2 = ctx.attrs().getString("cuda.residual_activation", "");
  ctx.require(act2.empty() || act2 == "Relu", "residual activation must be Relu");
  p += constant("act2_kind", act2 == "Relu" ? 1 : 0);
  k.params = p;

  k.args = {"const float* __restrict__ x", "const float* __restrict__ w"};
  if (has_bias) k.args.push_back("const float* __restrict__ b");
  if (has_res) k.args.push_back("const float* __restrict__ r");
  k.args.push_back("float* __restrict__ y");
  const std::string call_args =
      std::string("(x, w, ") + (has_bias ? "b" : "nullptr") + ", " + (has_res ? "r" : "nullptr") + ", y);";

  const int64_t ntot = n * win.outVolume();
  if (cg == 1) {
    k.body = "vdla::convDirect<P>" + call_args;
    gridStride(k, n * m * win.outVolume());
    return true;
  }
  ctx.require(group <= 65535, "more than 65535 groups");
  const ConvKernelVariant& v =
      ctx.options.conv_kernel.empty()
          ? chooseConvKernel(ctx.options, mg, ntot, group,
                             std::all_of(ws.begin() + 2, ws.end(), [](int64_t d) { return d == 1; }))
          : variantNamed(ctx, ctx.options.conv_kernel);
  if (v.tf32) {
    ctx.require(ctx.options.tf32_tensor_cores,
                std::string("convolution kernel '") + v.name + "' needs TF32 tensor cores switched on");
    k.body = "vdla::convImplicitGemmTf32<P>" + call_args;
    k.block[0] = 128;
  } else {
    k.body = "vdla::convImplicitGemm<P, " + std::to_string(v.bm) + ", " + std::to_string(v.bn) + ", " +
             std::to_string(v.bk) + ", " + std::to_string(v.tm) + ", " + std::to_string(v.tn) + ">" + call_args;
    k.block[0] = (v.bm / v.tm) * (v.bn / v.tn);
  }
  k.grid[0] = ceilDiv(ntot, v.bn);
  k.grid[1] = ceilDiv(mg, v.bm);
  k.grid[2] = group;
  return true;
}

}  // namespace vdla::cuda

namespace vdla::cuda {

std::vector<std::string> convKernelNames() {
  std::vector<std::string> names;
  for (const auto& v : kVariants) names.push_back(v.name);
  return names;
}

}  // namespace vdla::cuda
