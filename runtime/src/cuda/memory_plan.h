// Offsets of the non-constant tensors of a plan in one device arena. A tensor
// lives from the step that writes it (graph inputs: before the first step) to
// its last reader (graph outputs: to the end); tensors whose lifetimes do not
// overlap may share bytes. First fit over tensors in order of definition: not
// optimal, but it reuses the memory of finished layers, which is what matters
// for a chain of convolutions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vdla/runtime/artifact.h"

namespace vdla::rt::cuda {

struct MemoryPlan {
  static constexpr size_t kAlignment = 256;  // cudaMalloc's alignment; also keeps vector loads aligned
  static constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> offset;  // per tensor id; kNone for constants and unused tensors
  size_t arena_bytes = 0;
  // Lifetime [first, last] in step indices (-1: before the first step; steps.size(): after the last).
  std::vector<int64_t> first, last;
};

MemoryPlan planMemory(const Artifact& artifact);

}  // namespace vdla::rt::cuda
