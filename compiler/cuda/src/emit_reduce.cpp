// Softmax, LogSoftmax and ReduceMean/Sum/Max/Min steps (f32).
#include "kernel_spec.h"

namespace vdla::cuda {

namespace {

int64_t normalizeAxis(const StepContext& ctx, int64_t axis, int64_t rank) {
  ctx.require(axis >= -rank && axis < rank,
              "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

void emitSoftmax(const StepContext& ctx, KernelSpec& k, bool is_log) {
  const rt::Shape& xs = ctx.input(0).type.shape;
  ctx.requireF32(ctx.input(0), "input");
  const int64_t rank = static_cast<int64_t>(xs.size());
  const bool legacy = ctx.attrs().getInt("legacy_2d", 0) != 0;
  int64_t axis = ctx.attrs().getInt("axis", legacy ? 1 : -1);
  int64_t outer = 1, count = 1, inner = 1;
  if (legacy) {
    // Opset < 13: rows of the [prod(shape[:axis]), prod(shape[axis:])] matrix.
    ctx.require(axis >= -rank && axis <= rank, "attribute 'axis' is out of range");
    if (axis < 0) axis += rank;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : count) *= xs[d];
  } else {
    axis = normalizeAxis(ctx, axis, rank);
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis)
        outer *= xs[d];
      else if (d == axis)
        count = xs[d];
      else
        inner *= xs[d];
    }
  }
  k.params = constant("lines", outer * inner) + constant("count", count) + constant("inner", inner);
  k.args = {"const float* __restrict__ x", "float* __restrict__ y"};
  k.body = std::string("vdla::softmax<P, ") + (is_log ? "true" : "false") + ">(x, y);";
  k.block[0] = 256;
  k.grid[0] = ceilDiv(outer * inner * 32, 256);
}

void emitReduceOp(const StepContext& ctx, KernelSpec& k, int kind) {
  const rt::ArtifactTensor& x = ctx.input(0);
  ctx.requireF32(x, "input data");
  const rt::Shape& xs = x.type.shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  std::vector<int64_t> axes = ctx.attrs().getInts("axes", {});
  if (ctx.hasInput(1)) {
    const rt::ArtifactTensor& a = ctx.input(1);
    ctx.require(a.isConstant(), "axes given at run time are not supported (they must be constant)");
    axes.clear();
    const rt::Tensor& t = *a.constant;
    for (int64_t i = 0; i < t.numElements(); ++i)
      axes.push_back(t.dtype() == rt::DType::I64 ? t.data<int64_t>()[i] : t.data<int32_t>()[i]);
  }
  const int64_t total_in = rt::numElements(xs);
  if (axes.empty() && ctx.attrs().getInt("noop_with_empty_axes", 0) != 0) {
    k.params = constant("total", total_in);
    k.args = {"const float* __restrict__ x", "float* __restrict__ y"};
    k.body = "vdla::copy<float>(x, y, P::total);";
    gridStride(k, total_in);
    return;
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) reduced[normalizeAxis(ctx, a, rank)] = true;
  const std::vector<int64_t> str = rt::rowMajorStrides(xs);
  std::vector<int64_t> kdims, rdims, rstr;
  int64_t outputs = 1, rvol = 1;
  for (int64_t d = 0; d < rank; ++d) {
    kdims.push_back(reduced[d] ? 1 : xs[d]);
    if (reduced[d]) {
      rdims.push_back(xs[d]);
      rstr.push_back(str[d]);
      rvol *= xs[d];
    } else {
      outputs *= xs[d];
    }
  }
  ctx.require(rt::numElements(ctx.output(0).type.shape) == outputs, "output has the wrong number of elements");
  k.params = constant("outputs", outputs) + constant("kept_rank", rank) + intArray("kdims", kdims) +
             intArray("kstr", str) + constant("red_rank", static_cast<int64_t>(rdims.size())) +
             intArray("rdims", rdims) + intArray("rstr", rstr) + constant("rvol", rvol) + constant("kind", kind);
  k.args = {"const float* __restrict__ x", "float* __restrict__ y"};
  k.body = "vdla::reduce<P>(x, y);";
  gridStride(k, outputs);
}

}  // namespace

bool emitReduce(const StepContext& ctx, KernelSpec& k) {
  if (ctx.op == "Softmax")
    emitSoftmax(ctx, k, false);
  else if (ctx.op == "LogSoftmax")
    emitSoftmax(ctx, k, true);
  else if (ctx.op == "ReduceMean")
    emitReduceOp(ctx, k, 0);
  else if (ctx.op == "ReduceSum")
    emitReduceOp(ctx, k, 1);
  else if (ctx.op == "ReduceMax")
    emitReduceOp(ctx, k, 2);
  else if (ctx.op == "ReduceMin")
    emitReduceOp(ctx, k, 3);
  else
    return false;
  return true;
}

}  // namespace vdla::cuda
