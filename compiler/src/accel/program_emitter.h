// What the layer code generators that build a program instruction by
// instruction share: the emitter (instructions with their DRAM regions), the
// micro-op table (identical kernels stored once) and the constant image's
// little helpers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"
#include "vdla/runtime/accel/device_program.h"

namespace vdla::accel::codegen {

inline int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline uint64_t alignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
// Regions of a layer's constant image (weights, parameter vectors, micro-ops)
// start on 4 KiB.
constexpr uint64_t kRegionAlign = 4096;

// Instructions in program order, with the DRAM region each one addresses.
class Emitter {
 public:
  size_t emit(const hw::Instruction& insn, rt::accel::Region region = rt::accel::Region::None) {
    program.insns.push_back(insn);
    program.regions.push_back(region);
    return program.insns.size() - 1;
  }
  hw::Instruction& at(size_t i) { return program.insns[i]; }
  rt::accel::DeviceProgram program;
};

// The layer's micro-op table; identical kernels are stored once.
class UopTable {
 public:
  std::pair<uint32_t, uint32_t> add(const std::vector<hw::Uop>& kernel) {
    auto key = std::vector<uint32_t>();
    key.reserve(kernel.size() * 3);
    for (const hw::Uop& u : kernel) key.insert(key.end(), {u.dst, u.src, u.wgt});
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    const uint32_t begin = static_cast<uint32_t>(uops.size());
    uops.insert(uops.end(), kernel.begin(), kernel.end());
    const std::pair<uint32_t, uint32_t> range{begin, static_cast<uint32_t>(uops.size())};
    index_.emplace(std::move(key), range);
    return range;
  }
  std::vector<hw::Uop> uops;

 private:
  std::map<std::vector<uint32_t>, std::pair<uint32_t, uint32_t>> index_;
};

// A little-endian int32 at byte `at` of a constant image.
inline void putI32(std::vector<uint8_t>& out, size_t at, int32_t v) {
  const uint32_t u = static_cast<uint32_t>(v);
  for (int i = 0; i < 4; ++i) out[at + static_cast<size_t>(i)] = static_cast<uint8_t>(u >> (8 * i));
}

// The end of a layer's code generation: the micro-op table goes into the
// constant image at `uops_at` (encoded; the image then padded to a region),
// the program's UOP load at `uop_load` gets its size, and the program moves
// into `program`. Throws DoesNotFit when the table exceeds the UOP buffer.
void placeMicroOps(Emitter& em, const UopTable& uops, size_t uop_load, uint64_t uops_at, const hw::HwConfig& cfg,
                   const std::string& layer, std::vector<uint8_t>& constants, rt::accel::DeviceProgram& program);

}  // namespace vdla::accel::codegen
