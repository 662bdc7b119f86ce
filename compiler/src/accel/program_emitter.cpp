#include "program_emitter.h"

#include <cstring>

#include "vdla/compiler/accel/tiling.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::accel::codegen {

void placeMicroOps(Emitter& em, const UopTable& uops, size_t uop_load, uint64_t uops_at, const hw::HwConfig& cfg,
                   const std::string& layer, std::vector<uint8_t>& constants, rt::accel::DeviceProgram& program) {
  if (uops.uops.size() > cfg.depth(hw::Memory::Uop))
    throw DoesNotFit("layer '" + layer + "': " + std::to_string(uops.uops.size()) + " micro-ops exceed the UOP buffer");
  hw::Instruction& ul = em.at(uop_load);
  ul.x_size = ul.x_stride = static_cast<uint32_t>(uops.uops.size());
  hw::IsaLayout layout(cfg);
  constants.resize(uops_at + uops.uops.size() * 4, 0);
  for (size_t k = 0; k < uops.uops.size(); ++k) {
    const uint32_t e = layout.encodeUop(uops.uops[k], "layer '" + layer + "' micro-op " + std::to_string(k));
    std::memcpy(constants.data() + uops_at + k * 4, &e, 4);
  }
  constants.resize(alignUp(constants.size(), kRegionAlign), 0);
  program = std::move(em.program);
}

}  // namespace vdla::accel::codegen
