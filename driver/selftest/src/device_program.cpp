#include "vdla/selftest/device_program.h"

#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"

namespace vdla::selftest {

ScopedBuffers::~ScopedBuffers() {
  for (const auto& b : buffers_) device_.release(b);
}

driver::Buffer ScopedBuffers::allocate(uint64_t bytes) {
  buffers_.push_back(device_.allocate(bytes));
  return buffers_.back();
}

driver::RunResult runProgram(driver::Device& device, ScopedBuffers& buffers,
                             const std::vector<hw::Instruction>& program, std::chrono::milliseconds timeout) {
  std::vector<uint8_t> stream = hw::encodeInstructionStream(hw::IsaLayout(device.config()), program);
  driver::Buffer insns = buffers.upload(stream);
  return device.run(insns.phys_addr, uint32_t(program.size()), timeout);
}

driver::Buffer uploadUops(driver::Device& device, ScopedBuffers& buffers, const std::vector<hw::Uop>& uops) {
  return buffers.upload(hw::encodeMicroOps(hw::IsaLayout(device.config()), uops));
}

}  // namespace vdla::selftest
