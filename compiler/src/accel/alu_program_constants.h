// The end of the ALU-only programs (max pooling, additions, global pooling):
// every instruction checked against the config's ISA layout, and the
// constant image written: parameter vectors (int32 ACC entries) from offset 0
// and the micro-ops at `uops_at`.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::accel {

inline void finishAluProgram(ConvProgram& out, const std::string& layer, const hw::HwConfig& cfg,
                             const std::vector<int32_t>& params, uint64_t uops_at, const std::vector<hw::Uop>& uops) {
  const rt::accel::DeviceProgram& prog = out.program;
  hw::IsaLayout layout(cfg);
  for (size_t k = 0; k < prog.insns.size(); ++k) {
    try {
      hw::Instruction probe = prog.insns[k];
      if (prog.regions[k] != rt::accel::Region::None) probe.dram_base = 0;  // relocated at load time
      layout.encode(probe, "layer '" + layer + "' instruction " + std::to_string(k));
    } catch (const std::exception& e) {
      throw DoesNotFit(e.what());  // a field too narrow for this layer's sizes
    }
  }
  const uint64_t end = uops_at + uops.size() * 4;
  out.constants.assign((end + kArenaAlign - 1) / kArenaAlign * kArenaAlign, 0);
  if (!params.empty()) std::memcpy(out.constants.data(), params.data(), params.size() * 4);
  for (size_t k = 0; k < uops.size(); ++k) {
    const uint32_t e = layout.encodeUop(uops[k], "layer '" + layer + "' micro-op " + std::to_string(k));
    std::memcpy(out.constants.data() + uops_at + k * 4, &e, 4);
  }
}

}  // namespace vdla::accel
