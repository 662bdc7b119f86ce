// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool steps (f32, 1-D to 3-D windows).
#include <algorithm>

#include "window.h"

namespace vdla::cuda {

namespace {

void emitWindowPool(const StepContext& ctx, KernelSpec& k, bool is_max) {
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.requireF32(x, "input X");
  ctx.requireF32(y, "output Y");
  ctx.require(ctx.numOutputs() == 1 || ctx.step.outputs[1] < 0, "MaxPool's Indices output is not supported");
  const Window3 w = resolveWindow3(ctx, x.type.shape, y.type.shape, ctx.attrs().getInts("kernel_shape"));
  const int64_t planes = x.type.shape[0] * x.type.shape[1];
  k.params = constant("planes", planes) + windowParams(w, true) +
             constantB("count_include_pad", ctx.attrs().getInt("count_include_pad", 0) != 0);
  k.args = {"const float* __restrict__ x", "float* __restrict__ y"};
  k.body = is_max ? "vdla::maxPool<P>(x, y);" : "vdla::averagePool<P>(x, y);";
  gridStride(k, planes * w.outVolume());
}

void emitGlobalPool(const StepContext& ctx, KernelSpec& k, bool is_max) {
  const rt::ArtifactTensor& x = ctx.input(0);
  ctx.requireF32(x, "input X");
  ctx.require(x.type.shape.size() >= 3, "input must have rank >= 3");
  const int64_t planes = x.type.shape[0] * x.type.shape[1];
  const int64_t volume = rt::numElements(x.type.shape) / std::max<int64_t>(planes, 1);
  k.params = constant("planes", planes) + constant("volume", volume);
  k.args = {"const float* __restrict__ x", "float* __restrict__ y"};
  k.body = std::string("vdla::globalPool<P, ") + (is_max ? "true" : "false") + ">(x, y);";
  // One warp per plane, eight warps per block.
  k.block[0] = 256;
  k.grid[0] = ceilDiv(planes * 32, 256);
}

}  // namespace

bool emitPool(const StepContext& ctx, KernelSpec& k) {
  if (ctx.op == "MaxPool")
    emitWindowPool(ctx, k, true);
  else if (ctx.op == "AveragePool")
    emitWindowPool(ctx, k, false);
  else if (ctx.op == "GlobalAveragePool")
    emitGlobalPool(ctx, k, false);
  else if (ctx.op == "GlobalMaxPool")
    emitGlobalPool(ctx, k, true);
  else
    return false;
  return true;
}

}  // namespace vdla::cuda
