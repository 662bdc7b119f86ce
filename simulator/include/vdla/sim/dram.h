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
  // Throws vdla::Error if `addr` is not the start of a live buffer.
  void release(uint64_t addr);

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
    std::unique_ptr<uint8_t[]> data;
  };
  uint64_t base_, capacity_, allocated_ = 0;
  std::map<uint64_t, Region> regions_;  // keyed by start address
};

}  // namespace vdla::sim
