// Sizes the importer refuses to go beyond, and checked arithmetic on them. A
// model file is untrusted input: every count read from it is checked here
// before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vdla/runtime/tensor.h"

namespace vdla::frontend::detail {

// Largest tensor (constant, input or inferred value) the importer accepts.
constexpr int64_t kMaxTensorBytes = int64_t{2} << 30;  // 2 GiB
// Largest rank of any tensor.
constexpr size_t kMaxRank = 32;
// Largest magnitude of an integer attribute or shape-deciding constant; far above
// any real kernel size, pad or axis, far below where sums and products of a few
// of them could overflow int64.
constexpr int64_t kMaxIntValue = int64_t{1} << 31;

// Element count of a shape, refusing negative dimensions, a rank above kMaxRank
// and tensors above kMaxTensorBytes. `what` names the tensor in the message.
int64_t checkedNumElements(const rt::Shape& shape, rt::DType dtype, const std::string& what);

}  // namespace vdla::frontend::detail
