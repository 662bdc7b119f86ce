#pragma once
// Helpers for running generated programs on a Device: scoped buffers and
// "write the instruction stream, launch, wait".
#include <cstdint>
#include <vector>

#include "vdla/driver/device.h"
#include "vdla/hw/isa.h"

namespace vdla::selftest {

// Buffers released when the scope ends.
class ScopedBuffers {
 public:
  explicit ScopedBuffers(driver::Device& device) : device_(device) {}
  ~ScopedBuffers();
  ScopedBuffers(const ScopedBuffers&) = delete;
  ScopedBuffers& operator=(const ScopedBuffers&) = delete;

  driver::Buffer allocate(uint64_t bytes);
  template <class T>
  driver::Buffer upload(const std::vector<T>& data) {
    driver::Buffer b = allocate(data.size() * sizeof(T));
    device_.write(b, 0, data.data(), data.size() * sizeof(T));
    return b;
  }
  template <class T>
  std::vector<T> download(const driver::Buffer& b, size_t count) {
    std::vector<T> data(count);
    device_.read(b, 0, data.data(), count * sizeof(T));
    return data;
  }

 private:
  driver::Device& device_;
  std::vector<driver::Buffer> buffers_;
};

// Encodes `program`, places it in a new buffer and runs it.
driver::RunResult runProgram(driver::Device& device, ScopedBuffers& buffers,
                             const std::vector<hw::Instruction>& program, std::chrono::milliseconds timeout);

// Encodes micro-ops and uploads them.
driver::Buffer uploadUops(driver::Device& device, ScopedBuffers& buffers, const std::vector<hw::Uop>& uops);

}  // namespace vdla::selftest
