#include "guarded_args.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace vdla_emu {

namespace {

constexpr unsigned char kSlack = 0xa5;  // fills the bytes between the lower guard and the data

size_t page() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

}  // namespace

GuardedArgs::GuardedArgs(const VdlaEmuKernel& kernel, void** params) {
  const size_t n = static_cast<size_t>(kernel.num_args);
  buffers_.resize(n);
  pointers_.resize(n);
  params_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    Buffer& b = buffers_[i];
    b.bytes = static_cast<size_t>(kernel.arg_bytes[i]);
    b.read_only = kernel.read_only >> i & 1u;
    std::memcpy(&b.device, params[i], sizeof(b.device));
    const size_t data_pages = (b.bytes + page() - 1) / page();
    b.map_bytes = (data_pages + 2) * page();
    void* m = mmap(nullptr, b.map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw std::runtime_error("cannot map " + std::to_string(b.map_bytes) + " bytes");
    b.map = static_cast<char*>(m);
    mprotect(b.map, page(), PROT_NONE);
    mprotect(b.map + b.map_bytes - page(), page(), PROT_NONE);
    // The data ends exactly at the upper guard: one element past the end faults.
    b.data = b.map + b.map_bytes - page() - b.bytes;
    std::memset(b.map + page(), kSlack, static_cast<size_t>(b.data - (b.map + page())));
    if (b.read_only) {
      if (b.bytes) std::memcpy(b.data, b.device, b.bytes);
    } else {
      std::memset(b.data, 0xff, b.bytes);
    }
    pointers_[i] = reinterpret_cast<uint64_t>(b.data);
    params_[i] = &pointers_[i];
  }
}

GuardedArgs::~GuardedArgs() {
  for (Buffer& b : buffers_)
    if (b.map) munmap(b.map, b.map_bytes);
}

std::string GuardedArgs::finish() {
  for (size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& b = buffers_[i];
    for (const char* p = b.map + page(); p < b.data; ++p)
      if (static_cast<unsigned char>(*p) != kSlack)
        return "a write " + std::to_string(b.data - p) + " bytes before the start of argument " + std::to_string(i) +
               " (" + std::to_string(b.bytes) + " bytes)";
    if (b.read_only && b.bytes && std::memcmp(b.data, b.device, b.bytes) != 0)
      return "the kernel changed its read-only argument " + std::to_string(i);
  }
  for (const Buffer& b : buffers_)
    if (!b.read_only && b.bytes) std::memcpy(b.device, b.data, b.bytes);
  return "";
}

std::string GuardedArgs::describe(uintptr_t address) const {
  for (size_t i = 0; i < buffers_.size(); ++i) {
    const Buffer& b = buffers_[i];
    const uintptr_t data = reinterpret_cast<uintptr_t>(b.data), end = data + b.bytes;
    const uintptr_t lo = reinterpret_cast<uintptr_t>(b.map), hi = lo + b.map_bytes;
    const std::string arg = "argument " + std::to_string(i) + ", which has " + std::to_string(b.bytes) + " bytes";
    if (address >= end && address < hi) return "byte offset " + std::to_string(address - data) + " of " + arg;
    if (address >= lo && address < data) return "byte offset -" + std::to_string(data - address) + " of " + arg;
  }
  return "";
}

}  // namespace vdla_emu
