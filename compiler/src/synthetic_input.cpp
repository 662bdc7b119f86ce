#include "vdla/compiler/synthetic_input.h"

#include <stdexcept>

namespace vdla {

rt::Tensor seededUniformInput(const rt::TensorType& type) {
  if (type.dtype != rt::DType::F32)
    throw std::runtime_error("a synthetic input needs an f32 tensor, got " + type.toString());
  rt::Tensor t(type.dtype, type.shape);
  uint64_t s = 0x2545f4914f6cdd1dull;  // xorshift64*
  for (int64_t i = 0; i < t.numElements(); ++i) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    t.data<float>()[i] = static_cast<float>((s * 0x2545f4914f6cdd1dull) >> 40) / float(1 << 23) - 1.0f;
  }
  return t;
}

}  // namespace vdla
