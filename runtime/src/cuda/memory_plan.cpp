#include "memory_plan.h"

#include <algorithm>

namespace vdla::rt::cuda {

MemoryPlan planMemory(const Artifact& a) {
  const size_t n = a.tensors.size();
  MemoryPlan p;
  p.offset.assign(n, MemoryPlan::kNone);
  p.first.assign(n, INT64_MAX);
  p.last.assign(n, INT64_MIN);
  const int64_t end = static_cast<int64_t>(a.steps.size());
  auto touch = [&](int32_t id, int64_t at) {
    p.first[id] = std::min(p.first[id], at);
    p.last[id] = std::max(p.last[id], at);
  };
  for (int32_t id : a.inputs) touch(id, -1);
  for (size_t s = 0; s < a.steps.size(); ++s) {
    for (int32_t id : a.steps[s].inputs)
      if (id >= 0) touch(id, static_cast<int64_t>(s));
    for (int32_t id : a.steps[s].outputs) touch(id, static_cast<int64_t>(s));
  }
  for (int32_t id : a.outputs) touch(id, end);

  struct Placed {
    size_t offset, size;
    int64_t first, last;
  };
  std::vector<Placed> placed;
  std::vector<size_t> order;
  for (size_t id = 0; id < n; ++id)
    if (!a.tensors[id].isConstant() && p.first[id] != INT64_MAX) order.push_back(id);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p.first[x] < p.first[y]; });
  for (size_t id : order) {
    const size_t size = std::max<size_t>(a.tensors[id].type.byteSize(), 1);
    const size_t rounded = (size + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment;
    // Blocks alive at the same time, by offset; take the first gap that fits.
    std::vector<const Placed*> busy;
    for (const Placed& b : placed)
      if (b.first <= p.last[id] && p.first[id] <= b.last) busy.push_back(&b);
    std::sort(busy.begin(), busy.end(), [](const Placed* x, const Placed* y) { return x->offset < y->offset; });
    size_t at = 0;
    for (const Placed* b : busy) {
      if (at + rounded <= b->offset) break;
      at = std::max(at, b->offset + b->size);
    }
    placed.push_back({at, rounded, p.first[id], p.last[id]});
    p.offset[id] = at;
    p.arena_bytes = std::max(p.arena_bytes, at + rounded);
  }
  return p;
}

}  // namespace vdla::rt::cuda
