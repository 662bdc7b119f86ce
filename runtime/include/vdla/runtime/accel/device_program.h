// What the vdla target adds to an artifact: the complete instruction streams of
// every offloaded layer and one constant image (packed weights, per-channel
// parameter vectors, micro-op kernels). Instructions address two regions,
// the constant image and the activation arena, by offsets; the runtime places
// both in device memory and relocates every LOAD/STORE once, at load time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::rt::accel {

// Artifact blob names.
constexpr const char* kProgramsBlob = "vdla.programs";
constexpr const char* kConstantsBlob = "vdla.constants";

enum class Region : uint8_t {
  None = 0,       // no DRAM address (GEMM, ALU, FINISH)
  Constants = 1,  // dram_base counts entries from the start of the constant image
  Io = 2,         // ... from the start of the activation arena
};
const char* regionName(Region r);

struct DeviceProgram {
  std::string name;                    // the layer (graph node) it runs
  std::vector<hw::Instruction> insns;  // LOAD/STORE dram_base relative to its region
  std::vector<Region> regions;         // one per instruction
};

struct DeviceModule {
  std::vector<DeviceProgram> programs;
  uint64_t io_bytes = 0;  // the activation arena every program shares
};

// Binary form of the programs (blob kProgramsBlob): instructions are encoded
// with the configuration's ISA layout, so a module only decodes under the
// configuration it was compiled for. Throws std::runtime_error on damage.
std::vector<uint8_t> serializeDeviceModule(const DeviceModule& module, const hw::HwConfig& cfg);
DeviceModule deserializeDeviceModule(const std::vector<uint8_t>& bytes, const hw::HwConfig& cfg);

// The instruction stream the device fetches: regions resolved to physical
// byte addresses, encoded. Throws when a base is not aligned to an entry or an
// address does not fit the ISA field.
std::vector<uint8_t> relocateProgram(const DeviceProgram& program, const hw::HwConfig& cfg, uint64_t constants_addr,
                                     uint64_t io_addr);

}  // namespace vdla::rt::accel
