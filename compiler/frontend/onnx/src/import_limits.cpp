#include "import_limits.h"

#include <stdexcept>

namespace vdla::frontend::detail {

int64_t checkedNumElements(const rt::Shape& shape, rt::DType dtype, const std::string& what) {
  if (shape.size() > kMaxRank)
    throw std::runtime_error(what + " has rank " + std::to_string(shape.size()) + ", above the limit of " +
                             std::to_string(kMaxRank));
  const int64_t max_elements = kMaxTensorBytes / static_cast<int64_t>(rt::dtypeSize(dtype));
  for (int64_t d : shape)
    if (d < 0) throw std::runtime_error(what + " has a negative dimension in shape " + rt::shapeToString(shape));
  // The other dimensions of an empty tensor are bounded too: code that
  // multiplies every dimension (rt::numElements) must not overflow on them.
  int64_t n = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d == 0) {
      empty = true;
      continue;
    }
    if (d > max_elements / n)
      throw std::runtime_error(what + " of shape " + rt::shapeToString(shape) + " is larger than the limit of " +
                               std::to_string(kMaxTensorBytes >> 30) + " GiB");
    n *= d;
  }
  return empty ? 0 : n;
}

}  // namespace vdla::frontend::detail
