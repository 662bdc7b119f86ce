#include "vdla/driver/device.h"

#include "vdla/driver/fsim_device.h"
#include "vdla/hw/error.h"

namespace vdla::driver {

RunResult Device::run(uint64_t insn_addr, uint32_t count, std::chrono::milliseconds timeout) {
  launch(insn_addr, count);
  return wait(timeout);
}

std::vector<std::string> deviceBackends() { return {"fsim"}; }

std::unique_ptr<Device> createDevice(const std::string& backend, const hw::HwConfig& cfg) {
  if (backend == "fsim") return std::make_unique<FsimDevice>(cfg);
  std::string names;
  for (const auto& n : deviceBackends()) names += (names.empty() ? "" : ", ") + n;
  throw Error("unknown device '" + backend + "' (this build has: " + names + ")");
}

void checkBufferRange(const Buffer& buffer, uint64_t offset, uint64_t bytes, const char* what) {
  if (offset > buffer.size || bytes > buffer.size - offset)
    throw Error(std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                " is outside the buffer of " + std::to_string(buffer.size) + " bytes");
}

}  // namespace vdla::driver
