// The activation arena of a network on the accelerator: every packed tensor an
// offloaded layer reads or writes gets a place in device memory for its
// lifetime (in steps), so that a layer's output stays where the next
// offloaded layer reads it and never crosses to the host in between. Places
// of tensors whose lifetimes do not overlap may coincide.
#pragma once

#include <cstdint>
#include <vector>

namespace vdla::accel {

class ArenaPlanner {
 public:
  explicit ArenaPlanner(uint64_t alignment) : alignment_(alignment) {}

  // A place for `bytes` live from step `first` to step `last` (inclusive):
  // the lowest aligned offset not overlapping any place whose lifetime
  // overlaps. Returns the byte offset.
  uint64_t allocate(uint64_t bytes, int64_t first, int64_t last);

  // The arena's size: the end of the highest place.
  uint64_t bytes() const { return size_; }

 private:
  struct Place {
    uint64_t offset, bytes;
    int64_t first, last;
  };
  uint64_t alignment_;
  uint64_t size_ = 0;
  std::vector<Place> places_;
};

}  // namespace vdla::accel
