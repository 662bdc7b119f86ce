// Conv steps, possibly with a fused residual Add (attribute "cuda.residual",
// set by fuseResidualAdds): inputs X, W, B (may be absent), [residual].
//
// Kernel choice: one input channel per group (depthwise) runs the direct
// kernel; everything else the implicit GEMM, on tensor cores when TF32 is
// enabled. The GEMM tile is the largest that still gives every SM of an
// H100/H200 (132) two blocks; small layers (batch 1, 7x7) take smaller tiles
// rather than leave SMs idle.
#include "window.h"

namespace vdla::cuda {

namespace {

struct GemmTile {
  int bm, bn, bk, tm, tn;
};

constexpr GemmTile kTiles[] = {{64, 64, 16, 4, 4}, {64, 32, 16, 4, 2}, {32, 32, 16, 2, 2}};
constexpr int64_t kWantedBlocks = 2 * 132;

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
  if (ctx.options.tf32_tensor_cores) {
    k.body = "vdla::convImplicitGemmTf32<P>" + call_args;
    k.block[0] = 128;
    k.grid[0] = ceilDiv(ntot, 64);
    k.grid[1] = ceilDiv(mg, 64);
    k.grid[2] = group;
    return true;
  }
  GemmTile t = kTiles[0];
  for (const GemmTile& cand : kTiles) {
    t = cand;
    if (ceilDiv(ntot, cand.bn) * ceilDiv(mg, cand.bm) * group >= kWantedBlocks) break;
  }
  k.body = "vdla::convImplicitGemm<P, " + std::to_string(t.bm) + ", " + std::to_string(t.bn) + ", " +
           std::to_string(t.bk) + ", " + std::to_string(t.tm) + ", " + std::to_string(t.tn) + ">" + call_args;
  k.block[0] = (t.bm / t.tm) * (t.bn / t.tn);
  k.grid[0] = ceilDiv(ntot, t.bn);
  k.grid[1] = ceilDiv(mg, t.bm);
  k.grid[2] = group;
  return true;
}

}  // namespace vdla::cuda
