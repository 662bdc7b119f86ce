#include "import_limits.h"

#include <stdexcept>

namespace vdla::frontend::detail {

int64_t checkedNumElements(const rt::Shape& shape, rt::DType dtype, const std::string& what) {
  if (shape.size() > kMaxRank)
    throw std::runtime_error(what + " has rank " + std::to_string(shape.size()) + ", above the limit of " +
                             std::to_string(kMaxRank));
  const int64_t max_elements = kMaxTensorBytes / static_cast<int64_t>(rt::dtypeSize(dtype));
  int64_t n = 1;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0) throw std::runtime_error(what + " has a negative dimension in shape " + rt::shapeToString(shape));
    if (d == 0) zero = true;
  }
  if (zero) return 0;
  for (int64_t d : shape) {
    // n * d <= max_elements without overflow.
    if (d > max_elements / n)
      throw std::runtime_error(what + " of shape " + rt::shapeToString(shape) + " is larger than the limit of " +
                               std::to_string(kMaxTensorBytes >> 30) + " GiB");
    n *= d;
  }
  return n;
}

}  // namespace vdla::frontend::detail
