// ReduceMean, ReduceSum, ReduceMax, ReduceMin over f32 (sums in double). Axes
// from the attribute or the second input; none reduces everything unless
// noop_with_empty_axes=1.
#include "common.h"
#include "register.h"

namespace vdla::rt::ref {

namespace {

enum class ReduceKind { Mean, Sum, Max, Min };

template <ReduceKind kKind>
void reduce(const KernelArgs& a) {
  const AttributeMap& attrs = a.attributes();
  const Tensor& x = a.input(0);
  requireDType(x, DType::F32, "input data");
  Tensor& y = a.output(0);
  const int64_t rank = x.rank();
  std::vector<int64_t> axes = attrs.getInts("axes", {});
  if (a.hasInput(1)) axes = readInts(a.input(1));
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  if (axes.empty() && attrs.getInt("noop_with_empty_axes", 0) != 0) {
    requireShape(y, x.shape());
    std::copy(xp, xp + x.numElements(), yp);
    return;
  }
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t axis : axes) reduced[normalizeAxis(axis, rank)] = true;
  // Output shape with kept (size-1) reduced dimensions; its row-major strides,
  // zeroed on reduced dimensions, map each input element to its output element.
  Shape kept(x.shape());
  Shape out;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) kept[d] = 1;
    if (!reduced[d] || attrs.getInt("keepdims", 1) != 0) out.push_back(kept[d]);
  }
  requireShape(y, out);
  const std::vector<int64_t> strides = broadcastStrides(x.shape(), kept);
  const int64_t n_out = numElements(kept);
  std::vector<double> acc(static_cast<size_t>(n_out), kKind == ReduceKind::Max   ? -INFINITY
                                                      : kKind == ReduceKind::Min ? INFINITY
                                                                                 : 0.0);
  std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
  int64_t o = 0;
  for (int64_t i = 0, n = x.numElements(); i < n; ++i) {
    const double v = xp[i];
    if (kKind == ReduceKind::Max)
      acc[o] = std::max(acc[o], v);
    else if (kKind == ReduceKind::Min)
      acc[o] = std::min(acc[o], v);
    else
      acc[o] += v;
    for (int64_t d = rank - 1; d >= 0; --d) {
      o += strides[d];
      if (++coord[d] < x.dim(d)) break;
      o -= strides[d] * x.dim(d);
      coord[d] = 0;
    }
  }
  const double count = n_out == 0 ? 1.0 : static_cast<double>(x.numElements()) / static_cast<double>(n_out);
  for (int64_t i = 0; i < n_out; ++i) yp[i] = static_cast<float>(kKind == ReduceKind::Mean ? acc[i] / count : acc[i]);
}

}  // namespace

void registerReduce(KernelRegistry& r) {
  r.add("ref.ReduceMean", reduce<ReduceKind::Mean>);
  r.add("ref.ReduceSum", reduce<ReduceKind::Sum>);
  r.add("ref.ReduceMax", reduce<ReduceKind::Max>);
  r.add("ref.ReduceMin", reduce<ReduceKind::Min>);
}

}  // namespace vdla::rt::ref
