#pragma once
// The length of ONNX Range(start, limit, delta), max(ceil((limit - start) /
// delta), 0): one definition for the type inference, which needs it for the
// output shape, and the reference kernel.
#include <cmath>
#include <stdexcept>
#include <string>

#include "vdla/runtime/tensor.h"

namespace vdla::rt {

inline int64_t rangeLength(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  if (start.dtype() == DType::F32) {
    const double s = start.getAsDouble(0), l = limit.getAsDouble(0), d = delta.getAsDouble(0);
    if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
      throw std::invalid_argument("Range needs finite operands and a nonzero delta");
    const double n = std::ceil((l - s) / d);
    if (n > double(int64_t{1} << 40)) throw std::invalid_argument("Range of " + std::to_string(n) + " elements");
    return n > 0 ? static_cast<int64_t>(n) : 0;
  }
  const int64_t s = start.getAsInt(0), l = limit.getAsInt(0), d = delta.getAsInt(0);
  if (d == 0) throw std::invalid_argument("Range needs a nonzero delta");
  const int64_t span = l - s;
  if ((span > 0) != (d > 0) || span == 0) return 0;
  // ceil(span / d) with both of one sign
  return d > 0 ? (span + d - 1) / d : (span + d + 1) / d;
}

}  // namespace vdla::rt
