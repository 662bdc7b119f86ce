#include "vdla/sim/dram.h"

#include <cstring>
#include <iterator>
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
  Region r{bytes, std::unique_ptr<uint8_t[]>(new uint8_t[bytes]), nullptr};
  r.data = r.owned.get();
  std::memset(r.data, 0, bytes);
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
  if (!it->second.owned) {
    std::ostringstream msg;
    msg << "release of DRAM address 0x" << std::hex << addr
        << ", which is attached memory rather than an allocated buffer (detach it instead)";
    throw Error(msg.str());
  }
  allocated_ -= it->second.size;
  regions_.erase(it);
}

void Dram::attach(uint64_t addr, uint8_t* host, uint64_t bytes) {
  std::ostringstream what;
  what << "attaching " << bytes << " bytes at DRAM address 0x" << std::hex << addr << ": ";
  if (!host || bytes == 0) throw Error(what.str() + "no memory given");
  // Written so that nothing overflows for ranges near 2^64.
  if (addr < base_ || bytes > capacity_ || addr - base_ > capacity_ - bytes) {
    what << "the range leaves the simulated address space [0x" << base_ << ", 0x" << base_ + capacity_ << ")";
    throw Error(what.str());
  }
  // The same guard gap as between allocated buffers, on both sides, so that
  // an access running off either end is still reported.
  auto next = regions_.lower_bound(addr);
  if (next != regions_.end() && next->first - addr < bytes + kGuardBytes) {
    what << "it overlaps the buffer at 0x" << next->first << " or its guard gap";
    throw Error(what.str());
  }
  if (next != regions_.begin()) {
    auto prev = std::prev(next);
    if (addr - prev->first < prev->second.size + kGuardBytes) {
      what << "it overlaps the buffer at 0x" << prev->first << " or its guard gap";
      throw Error(what.str());
    }
  }
  regions_.emplace(addr, Region{bytes, nullptr, host});
  allocated_ += bytes;
}

void Dram::detach(uint64_t addr) {
  auto it = regions_.find(addr);
  if (it == regions_.end() || it->second.owned) {
    std::ostringstream msg;
    msg << "detach of DRAM address 0x" << std::hex << addr << ", which is not the start of attached memory";
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
  return it->second.data + offset;
}

const uint8_t* Dram::map(uint64_t addr, uint64_t bytes) const { return const_cast<Dram*>(this)->map(addr, bytes); }

}  // namespace vdla::sim
