// Slice and Split for any element type. Slice takes starts/ends/axes?/steps?
// as inputs (the importer moves the old attributes there); negative indices
// count from the end, out-of-range ones are clamped as ONNX specifies, and
// negative steps walk backwards. Split copies consecutive blocks of one axis
// into its outputs, whose shapes the compiler computed.
#include <cstring>

#include "common.h"
#include "register.h"
#include "vdla/runtime/slice_axis.h"

namespace vdla::rt::ref {

namespace {

void slice(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  Tensor& y = a.output(0);
  requireDType(y, x.dtype(), "output");
  const int64_t rank = x.rank();
  const std::vector<int64_t> starts = readInts(a.input(1));
  const std::vector<int64_t> ends = readInts(a.input(2));
  std::vector<int64_t> axes;
  if (a.hasInput(3))
    axes = readInts(a.input(3));
  else
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  std::vector<int64_t> steps(starts.size(), 1);
  if (a.hasInput(4)) steps = readInts(a.input(4));
  require(ends.size() == starts.size() && axes.size() == starts.size() && steps.size() == starts.size(),
          "starts, ends, axes and steps must have the same length");
  // Per input dimension: first index read and step; untouched axes read all.
  std::vector<int64_t> first(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
  Shape out = x.shape();
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t d = normalizeAxis(axes[i], rank);
    require(!seen[d], "axis " + std::to_string(axes[i]) + " is sliced twice");
    require(steps[i] != 0, "a step is zero");
    seen[d] = true;
    step[d] = steps[i];
    const SliceAxis sa = resolveSliceAxis(starts[i], ends[i], steps[i], x.dim(d));
    first[d] = sa.first;
    out[d] = sa.count;
  }
  requireShape(y, out);
  if (y.numElements() == 0) return;
  const std::vector<int64_t> in_strides = rowMajorStrides(x.shape());
  const size_t esize = dtypeSize(x.dtype());
  const auto* src = static_cast<const uint8_t*>(x.raw());
  auto* dst = static_cast<uint8_t*>(y.raw());
  // Odometer over the output coordinates, keeping the input offset.
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  int64_t in = 0;
  for (int64_t d = 0; d < rank; ++d) in += first[d] * in_strides[d];
  for (int64_t i = 0, n = y.numElements(); i < n; ++i) {
    std::memcpy(dst + i * esize, src + in * esize, esize);
    for (int64_t d = rank - 1; d >= 0; --d) {
      in += step[d] * in_strides[d];
      if (++coord[d] < out[d]) break;
      in -= step[d] * in_strides[d] * out[d];
      coord[d] = 0;
    }
  }
}

void split(const KernelArgs& a) {
  const Tensor& x = a.input(0);
  require(x.rank() >= 1, "input must have rank >= 1");
  const int64_t axis = normalizeAxis(a.attributes().getInt("axis", 0), x.rank());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (d < axis) outer *= x.dim(d);
    if (d > axis) inner *= x.dim(d);
  }
  const size_t esize = dtypeSize(x.dtype());
  const size_t in_row = static_cast<size_t>(x.dim(axis) * inner) * esize;
  const auto* src = static_cast<const uint8_t*>(x.raw());
  size_t offset = 0;
  int64_t total = 0;
  for (size_t k = 0; k < a.outputs.size(); ++k) {
    Tensor& y = a.output(k);
    requireDType(y, x.dtype(), "output");
    bool same_outside_axis = y.rank() == x.rank();
    for (int64_t d = 0; same_outside_axis && d < x.rank(); ++d) same_outside_axis = d == axis || y.dim(d) == x.dim(d);
    require(same_outside_axis, "output " + std::to_string(k) + " " + shapeToString(y.shape()) +
                                   " differs from the input " + shapeToString(x.shape()) + " outside the axis");
    if (a.hasInput(1)) {
      const std::vector<int64_t> sizes = readInts(a.input(1));
      require(sizes.size() == a.outputs.size() && sizes[k] == y.dim(axis),
              "output " + std::to_string(k) + " does not have the size 'split' gives");
    }
    const size_t row = static_cast<size_t>(y.dim(axis) * inner) * esize;
    auto* dst = static_cast<uint8_t*>(y.raw());
    for (int64_t o = 0; o < outer; ++o)
      if (row) std::memcpy(dst + o * row, src + o * in_row + offset, row);
    offset += row;
    total += y.dim(axis);
  }
  require(total == x.dim(axis), "the outputs do not cover the input along the axis");
}

}  // namespace

void registerSlice(KernelRegistry& r) {
  r.add("ref.Slice", slice);
  r.add("ref.Split", split);
}

}  // namespace vdla::rt::ref
