// ONNX Slice on one axis: the first index and the element count that
// (start, end, step) select from an axis of `dim` elements, with negative
// indices counted from the end and both ends clamped as the operator's
// definition says. Shared by the type inference and the reference kernel.
#pragma once

#include <algorithm>
#include <cstdint>

namespace vdla::rt {

struct SliceAxis {
  int64_t first = 0, count = 0;
};

inline SliceAxis resolveSliceAxis(int64_t start, int64_t end, int64_t step, int64_t dim) {
  if (dim == 0) return {};  // (also keeps the negative-step clamp range non-empty)
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
  const int64_t span = end - start;
  // ceil(span / step) for spans of the step's sign, written without overflow.
  SliceAxis a;
  a.first = start;
  if (step > 0 && span > 0) a.count = (span - 1) / step + 1;
  if (step < 0 && span < 0) a.count = (-span - 1) / -step + 1;
  return a;
}

}  // namespace vdla::rt
