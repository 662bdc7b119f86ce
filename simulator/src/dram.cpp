#include "vdla/sim/dram.h"

#include <cstring>
#include <sstream>

#include "vdla/hw/error.h"

namespace vdla::sim {

Dram::Dram(uint64_t base, uint64_t capacity) : base_(base), capacity_(capacity) {}

uint64_t Dram::allocate(uint64_t bytes, uint64_t align) {
  if (align == 0 || (align & (align - 1)) != 0) throw Error("DRAM allocation alignment must be a power of two");
  if (bytes == 0) bytes = 1;
  if (bytes > capacity_) {
    std::ostringstream msg;
    msg << "cannot allocate " << bytes << " bytes: the simulated DRAM holds " << capacity_ << " bytes";
    throw Error(msg.str());
  }
  // First fit between existing regions, in address order, keeping an unmapped
  // guard gap after every buffer so that an access running past the end of one
  // buffer is reported instead of landing in its neighbour.
  uint64_t candidate = base_;
  for (const auto& [start, region] : regions_) {
    candidate = (candidate + align - 1) & ~(align - 1);
    if (candidate + bytes + kGuardBytes <= start) break;
    candidate = start + region.size + kGuardBytes;
  }
  candidate = (candidate + align - 1) & ~(align - 1);
  if (candidate + bytes > base_ + capacity_) {
    std::ostringstream msg;
    msg << "simulated DRAM exhausted: cannot allocate " << bytes << " bytes (" << allocated_ << " of " << capacity_
        << " bytes in use)";
    throw Error(msg.str());
  }
  Region r{bytes, std::unique_ptr<uint8_t[]>(new uint8_t[bytes])};
  std::memset(r.data.get(), 0, bytes);
  regions_.emplace(candidate, std::move(r));
  allocated_ += bytes;
  return candidate;
}

void Dram::release(uint64_t addr) {
  auto it = regions_.find(addr);
  if (it == regions_.end()) {
    std::ostringstream msg;
    msg << "release of DRAM address 0x" << std::hex << addr << " which is not the start of a buffer";
    throw Error(msg.str());
  }
  allocated_ -= it->second.size;
  regions_.erase(it);
}

uint8_t* Dram::map(uint64_t addr, uint64_t bytes) {
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return nullptr;
  --it;
  uint64_t offset = addr - it->first;
  if (offset > it->second.size || bytes > it->second.size - offset) return nullptr;
  return it->second.data.get() + offset;
}

const uint8_t* Dram::map(uint64_t addr, uint64_t bytes) const { return const_cast<Dram*>(this)->map(addr, bytes); }

}  // namespace vdla::sim
