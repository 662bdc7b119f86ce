// Data-movement steps: Identity, Flatten, Reshape, Squeeze, Unsqueeze and
// Dropout (copies), Concat, Transpose, Pad, Gather and Shape. Generic in the
// element type.
#include <algorithm>

#include "kernel_spec.h"

namespace vdla::cuda {

namespace {

int64_t normalizeAxis(const StepContext& ctx, int64_t axis, int64_t rank) {
  ctx.require(axis >= -rank && axis < rank,
              "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> constantInts(const StepContext& ctx, size_t input, const char* what) {
  const rt::ArtifactTensor& t = ctx.input(input);
  ctx.require(t.isConstant(), std::string(what) + " given at run time are not supported (they must be constant)");
  std::vector<int64_t> v;
  const rt::Tensor& c = *t.constant;
  ctx.require(c.dtype() == rt::DType::I64 || c.dtype() == rt::DType::I32, std::string(what) + " must be integers");
  for (int64_t i = 0; i < c.numElements(); ++i)
    v.push_back(c.dtype() == rt::DType::I64 ? c.data<int64_t>()[i] : c.data<int32_t>()[i]);
  return v;
}

void emitCopy(const StepContext& ctx, KernelSpec& k) {
  ctx.require(ctx.numOutputs() == 1, "a second output (Dropout's mask) is not supported");
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.require(x.type.dtype == y.type.dtype && rt::numElements(x.type.shape) == rt::numElements(y.type.shape),
              "input and output differ in type or size");
  const std::string tn = cudaTypeName(x.type.dtype);
  const int64_t total = rt::numElements(y.type.shape);
  k.params = constant("total", total);
  k.args = {"const " + tn + "* __restrict__ x"};
  // Further inputs (Reshape's shape, Squeeze's axes, Dropout's ratio) only
  // shaped the output when compiling; they are still arguments.
  for (size_t i = 1; i < ctx.step.inputs.size(); ++i)
    if (ctx.hasInput(i)) k.args.push_back("const void* __restrict__ unused" + std::to_string(i));
  k.args.push_back(tn + "* __restrict__ y");
  k.body = "vdla::copy<" + tn + ">(x, y, P::total);";
  gridStride(k, total);
}

// The input holding output position a along the axis is chosen by an if-chain
// over the inputs' ranges, written out for this step's inputs.
void emitConcat(const StepContext& ctx, KernelSpec& k) {
  const rt::ArtifactTensor& y = ctx.output(0);
  const rt::Shape& ys = y.type.shape;
  const int64_t rank = static_cast<int64_t>(ys.size());
  const int64_t axis = normalizeAxis(ctx, ctx.attrs().getInt("axis"), rank);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) outer *= ys[d];
    if (d > axis) inner *= ys[d];
  }
  const std::string tn = cudaTypeName(y.type.dtype);
  std::string chain;
  int64_t begin = 0;
  for (size_t i = 0; i < ctx.step.inputs.size(); ++i) {
    const rt::ArtifactTensor& x = ctx.input(i);
    ctx.require(x.type.dtype == y.type.dtype && static_cast<int64_t>(x.type.shape.size()) == rank,
                "input " + std::to_string(i) + " does not match the output");
    for (int64_t d = 0; d < rank; ++d)
      ctx.require(d == axis || x.type.shape[d] == ys[d], "input " + std::to_string(i) + " does not match the output");
    const int64_t len = x.type.shape[axis];
    k.args.push_back("const " + tn + "* __restrict__ x" + std::to_string(i));
    chain += "    " + std::string(i ? "else " : "") + "if (a < " + std::to_string(begin + len) + ") v = x" +
             std::to_string(i) + "[(o * " + std::to_string(len) + " + a - " + std::to_string(begin) +
             ") * P::inner + in];\n";
    begin += len;
  }
  ctx.require(begin == ys[axis], "inputs do not fill the output along the axis");
  k.args.push_back(tn + "* __restrict__ y");
  const int64_t total = rt::numElements(ys);
  k.params = constant("total", total) + constant("inner", inner) + constant("axis_len", ys[axis]);
  k.body =
      "for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) {\n"
      "    const int in = i % P::inner, a = (i / P::inner) % P::axis_len, o = i / (P::inner * P::axis_len);\n"
      "    " +
      tn + " v = 0;\n" + chain + "    y[i] = v;\n  }";
  (void)outer;
  gridStride(k, total);
}

void emitTranspose(const StepContext& ctx, KernelSpec& k) {
  const rt::Shape& xs = ctx.input(0).type.shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  std::vector<int64_t> perm;
  for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  perm = ctx.attrs().getInts("perm", perm);
  ctx.require(static_cast<int64_t>(perm.size()) == rank, "attribute 'perm' does not match the input's rank");
  const std::vector<int64_t> in_str = rt::rowMajorStrides(xs);
  std::vector<int64_t> odims, src;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t p = normalizeAxis(ctx, perm[d], rank);
    odims.push_back(xs[p]);
    src.push_back(in_str[p]);
  }
  ctx.require(odims == ctx.output(0).type.shape, "output shape does not match the permutation");
  const std::string tn = cudaTypeName(ctx.input(0).type.dtype);
  const int64_t total = rt::numElements(odims);
  k.params = constant("total", total) + constant("rank", rank) + intArray("odims", odims) + intArray("src_str", src);
  k.args = {"const " + tn + "* __restrict__ x", tn + "* __restrict__ y"};
  k.body = "vdla::transpose<P, " + tn + ">(x, y);";
  gridStride(k, total);
}

void emitPad(const StepContext& ctx, KernelSpec& k) {
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::Shape& xs = x.type.shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  const std::string mode = ctx.attrs().getString("mode", "constant");
  ctx.require(mode == "constant" || mode == "reflect" || mode == "edge",
              "attribute 'mode' has unsupported value \"" + mode + "\"");
  const std::vector<int64_t> pads =
      ctx.attrs().has("pads") ? ctx.attrs().getInts("pads") : constantInts(ctx, 1, "pads");
  std::vector<int64_t> axes;
  if (ctx.hasInput(3)) {
    for (int64_t a : constantInts(ctx, 3, "axes")) axes.push_back(normalizeAxis(ctx, a, rank));
  } else {
    for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  ctx.require(pads.size() == 2 * axes.size(), "'pads' does not have two values per padded axis");
  std::vector<int64_t> begin(static_cast<size_t>(rank), 0);
  rt::Shape out = xs;
  for (size_t i = 0; i < axes.size(); ++i) {
    begin[axes[i]] = pads[i];
    out[axes[i]] += pads[i] + pads[i + axes.size()];
  }
  ctx.require(out == ctx.output(0).type.shape, "output shape does not match the pads");
  if (mode != "constant")
    for (int64_t d = 0; d < rank; ++d)
      ctx.require(xs[d] > 0 || out[d] == 0, "mode '" + mode + "' cannot pad an empty dimension");
  const std::string tn = cudaTypeName(x.type.dtype);
  const bool has_value = ctx.hasInput(2);
  if (has_value)
    ctx.require(ctx.input(2).type.dtype == x.type.dtype && rt::numElements(ctx.input(2).type.shape) == 1,
                "constant_value must be a scalar of the input's type");
  const int64_t total = rt::numElements(out);
  k.params = constant("total", total) + constant("rank", rank) + intArray("odims", out) + intArray("idims", xs) +
             intArray("istr", rt::rowMajorStrides(xs)) + intArray("begin", begin) +
             constant("mode", mode == "constant" ? 0
                              : mode == "edge"   ? 1
                                                 : 2) +
             constantF("fill", ctx.attrs().getFloat("value", 0.0));
  k.args = {"const " + tn + "* __restrict__ x"};
  if (ctx.hasInput(1)) k.args.push_back("const void* __restrict__ pads_unused");
  if (has_value) k.args.push_back("const " + tn + "* __restrict__ value");
  if (ctx.hasInput(3)) k.args.push_back("const void* __restrict__ axes_unused");
  k.args.push_back(tn + "* __restrict__ y");
  k.body = "vdla::pad<P, " + tn + ">(x, " + (has_value ? "value" : "nullptr") + ", y);";
  gridStride(k, total);
}

void emitGather(const StepContext& ctx, KernelSpec& k) {
  const rt::ArtifactTensor& x = ctx.input(0);
  const rt::ArtifactTensor& idx = ctx.input(1);
  const rt::Shape& xs = x.type.shape;
  ctx.require(!xs.empty(), "data must have rank >= 1");
  ctx.require(idx.type.dtype == rt::DType::I64 || idx.type.dtype == rt::DType::I32, "indices must be int32 or int64");
  const int64_t axis = normalizeAxis(ctx, ctx.attrs().getInt("axis", 0), static_cast<int64_t>(xs.size()));
  int64_t inner = 1;
  for (size_t d = axis + 1; d < xs.size(); ++d) inner *= xs[d];
  const int64_t count = rt::numElements(idx.type.shape);
  if (idx.isConstant())
    for (int64_t i : constantInts(ctx, 1, "indices"))
      ctx.require(i >= -xs[axis] && i < xs[axis], "index " + std::to_string(i) + " is out of range for axis " +
                                                      std::to_string(axis) + " of size " + std::to_string(xs[axis]));
  const std::string tn = cudaTypeName(x.type.dtype), in = cudaTypeName(idx.type.dtype);
  const int64_t total = rt::numElements(ctx.output(0).type.shape);
  k.params =
      constant("total", total) + constant("inner", inner) + constant("count", count) + constant("size", xs[axis]);
  k.args = {"const " + tn + "* __restrict__ x", "const " + in + "* __restrict__ idx", tn + "* __restrict__ y"};
  k.body = "vdla::gather<P, " + tn + ", " + in + ">(x, idx, y);";
  gridStride(k, total);
}

// Shape: the dimensions are known when compiling; the kernel writes them.
void emitShape(const StepContext& ctx, KernelSpec& k) {
  const rt::ArtifactTensor& y = ctx.output(0);
  ctx.require(y.type.dtype == rt::DType::I64, "Shape's output must be int64");
  const rt::Shape& xs = ctx.input(0).type.shape;
  const int64_t rank = static_cast<int64_t>(xs.size());
  int64_t start = ctx.attrs().getInt("start", 0), end = ctx.attrs().getInt("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  std::vector<int64_t> dims(xs.begin() + start, xs.begin() + std::max(start, end));
  ctx.require(static_cast<int64_t>(dims.size()) == rt::numElements(y.type.shape), "output size does not match");
  k.params = constant("total", static_cast<int64_t>(dims.size())) + intArray("dims", dims);
  k.args = {"const void* __restrict__ x_unused", "long long* __restrict__ y"};
  k.body = "for (int i = vdla::globalThread(); i < P::total; i += vdla::gridThreads()) y[i] = P::dims[i];";
  gridStride(k, static_cast<int64_t>(dims.size()));
}

}  // namespace

bool emitTensorOp(const StepContext& ctx, KernelSpec& k) {
  const std::string& op = ctx.op;
  if (op == "Identity" || op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Dropout")
    emitCopy(ctx, k);
  else if (op == "Concat")
    emitConcat(ctx, k);
  else if (op == "Transpose")
    emitTranspose(ctx, k);
  else if (op == "Pad")
    emitPad(ctx, k);
  else if (op == "Gather")
    emitGather(ctx, k);
  else if (op == "Shape")
    emitShape(ctx, k);
  else
    return false;
  return true;
}

}  // namespace vdla::cuda
