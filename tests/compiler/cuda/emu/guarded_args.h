// The kernel arguments of one emulated launch, each in a buffer of exactly
// its tensor's size that ends at an inaccessible page, so that reading or
// writing past the end faults and is reported naming the argument.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emu_abi.h"

namespace vdla_emu {

class GuardedArgs {
 public:
  // `params[i]` points to the device pointer of argument i (cuLaunchKernel's
  // convention). Inputs are copied in; outputs start as all-ones bytes (NaN
  // for floats), so that elements the kernel fails to write show up.
  GuardedArgs(const VdlaEmuKernel& kernel, void** params);
  ~GuardedArgs();
  GuardedArgs(const GuardedArgs&) = delete;
  GuardedArgs& operator=(const GuardedArgs&) = delete;

  void** params() { return params_.data(); }
  // Checks the bytes before each buffer (writes before the start), that
  // read-only arguments are unchanged, and copies the outputs back.
  // Returns "" or what is wrong.
  std::string finish();
  // "byte offset 4096 of argument 2, which has 4096 bytes" for an address in a guard.
  std::string describe(uintptr_t address) const;

 private:
  struct Buffer {
    char* map = nullptr;  // [guard page][slack][data][guard page]
    size_t map_bytes = 0;
    char* data = nullptr;
    size_t bytes = 0;
    char* device = nullptr;  // where the argument lives in emulated device memory
    bool read_only = false;
  };
  std::vector<Buffer> buffers_;
  std::vector<uint64_t> pointers_;
  std::vector<void*> params_;
};

}  // namespace vdla_emu
