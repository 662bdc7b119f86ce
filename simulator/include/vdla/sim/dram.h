#pragma once
// Simulated DRAM: a physical address space in which buffers are allocated.
// Every simulator reaches DRAM only through map(), which resolves a physical
// range to host memory and refuses a range that is not inside one buffer, so an
// out-of-bounds access is reported instead of corrupting host memory.
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace vdla::sim {

class Dram {
 public:
  // Physical addresses start at `base`; the default keeps address 0 unmapped so
  // that a null address is always an error.
  explicit Dram(uint64_t base = 0x10000000, uint64_t capacity = uint64_t(1) << 32);

  // Allocates `bytes` (zero-filled), aligned to `align` (a power of two).
  // Throws vdla::Error when the address space is exhausted.
  uint64_t allocate(uint64_t bytes, uint64_t align = 4096);
  // Throws vdla::Error if `addr` is not the start of a live buffer, or is the
  // start of attached memory (which detach() removes).
  void release(uint64_t addr);

  // Makes `bytes` of memory owned by the caller appear at physical address
  // `addr`, so that a simulator reads and writes those very bytes (e.g. a file
  // a driver maps as its DMA region) instead of a copy. The region is checked
  // like a buffer in map() and keeps the same guard gaps; it counts in
  // bytesAllocated(). `host` must stay valid until detach() or the Dram's end.
  // Throws vdla::Error if the range leaves the address space or overlaps a
  // buffer, attached memory, or their guard gaps.
  void attach(uint64_t addr, uint8_t* host, uint64_t bytes);
  // Removes attached memory; the caller's bytes are left as they are. Throws
  // vdla::Error if `addr` is not the start of attached memory.
  void detach(uint64_t addr);

  // Host pointer for [addr, addr+bytes) if that range lies inside one buffer,
  // otherwise nullptr.
  uint8_t* map(uint64_t addr, uint64_t bytes);
  const uint8_t* map(uint64_t addr, uint64_t bytes) const;

  uint64_t bytesAllocated() const { return allocated_; }

  // Unmapped bytes kept after every buffer.
  static constexpr uint64_t kGuardBytes = 4096;

 private:
  struct Region {
    uint64_t size;
    std::unique_ptr<uint8_t[]> owned;  // null for attached memory
    uint8_t* data;                     // owned.get() or the attached bytes
  };
  uint64_t base_, capacity_, allocated_ = 0;
  std::map<uint64_t, Region> regions_;  // keyed by start address
};

}  // namespace vdla::sim
