// The interface between the emulated CUDA driver (emulated_driver.cpp) and
// the kernel objects it runs: the generated CUDA C++ compiled by the host
// compiler with cuda_emulation.h. Plain C types, so that both sides agree
// without sharing anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {

struct VdlaEmuDim {
  unsigned x, y, z;
};

// What one emulated GPU thread sees. The driver's block scheduler points the
// kernel object's `vdla_emu_current` at the running thread's record before
// every switch to it.
struct VdlaEmuThread {
  VdlaEmuDim thread_idx, block_idx, block_dim, grid_dim;
  unsigned lane;  // threadIdx linearised, modulo 32
  void* scheduler;
  // __syncthreads(): returns when every thread of the block has arrived.
  void (*barrier)(VdlaEmuThread* self, int line);
  // A warp-wide exchange (shuffles, votes): deposits `value` and returns the
  // 32 values the lanes of the warp deposited once all lanes in `mask` have.
  const uint64_t* (*warp_exchange)(VdlaEmuThread* self, unsigned mask, uint64_t value, int line);
};

// One kernel, exported by the kernel object as `<entry>__emu`.
struct VdlaEmuKernel {
  void (*run)(void** args);    // the kernel body for the running emulated thread
  int num_args;                // as the kernel declares them
  const long long* arg_bytes;  // size of each argument's tensor
  unsigned read_only;          // bit i: argument i points to const data
};

}  // extern "C"

namespace vdla_emu {

// The byte size of a module image as cuModuleLoadData receives it (a pointer
// only): a cubin is an ELF file whose headers give its extent; PTX is text
// ending with NUL.
inline size_t imageBytes(const void* image) {
  const unsigned char* p = static_cast<const unsigned char*>(image);
  if (std::memcmp(p,
                  "\x7f"
                  "ELF",
                  4) == 0 &&
      p[4] == 2) {  // ELF64
    uint64_t shoff, phoff;
    uint16_t phentsize, phnum, shentsize, shnum;
    std::memcpy(&phoff, p + 0x20, 8);
    std::memcpy(&shoff, p + 0x28, 8);
    std::memcpy(&phentsize, p + 0x36, 2);
    std::memcpy(&phnum, p + 0x38, 2);
    std::memcpy(&shentsize, p + 0x3a, 2);
    std::memcpy(&shnum, p + 0x3c, 2);
    const uint64_t sh_end = shoff + uint64_t{shentsize} * shnum, ph_end = phoff + uint64_t{phentsize} * phnum;
    return static_cast<size_t>(sh_end > ph_end ? sh_end : ph_end);
  }
  return std::strlen(static_cast<const char*>(image));
}

// FNV-1a of the image: the name under which the test harness files the
// kernel object compiled for it.
inline uint64_t imageHash(const void* image) {
  const unsigned char* p = static_cast<const unsigned char*>(image);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0, n = imageBytes(image); i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

}  // namespace vdla_emu
