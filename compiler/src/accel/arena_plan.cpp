#include "vdla/compiler/accel/arena_plan.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace vdla::accel {

uint64_t ArenaPlanner::allocate(uint64_t bytes, int64_t first, int64_t last) {
  if (last < first) throw std::invalid_argument("arena: lifetime ends before it starts");
  const uint64_t size = std::max<uint64_t>((bytes + alignment_ - 1) / alignment_ * alignment_, alignment_);
  // Places alive at the same time, by offset; the first gap that holds `size` wins.
  std::vector<const Place*> live;
  for (const Place& p : places_)
    if (p.first <= last && first <= p.last) live.push_back(&p);
  std::sort(live.begin(), live.end(), [](const Place* a, const Place* b) { return a->offset < b->offset; });
  uint64_t offset = 0;
  for (const Place* p : live) {
    if (offset + size <= p->offset) break;
    offset = std::max(offset, p->offset + p->bytes);
  }
  places_.push_back({offset, size, first, last});
  size_ = std::max(size_, offset + size);
  return offset;
}

}  // namespace vdla::accel
