#include "vdla/runtime/accel/device_program.h"

#include <cstring>
#include <stdexcept>

#include "vdla/hw/isa_layout.h"

namespace vdla::rt::accel {

namespace {

constexpr char kMagic[8] = {'V', 'D', 'L', 'A', 'P', 'G', 'M', '\0'};
constexpr uint32_t kVersion = 1;

void putU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void putU64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

struct Reader {
  const std::vector<uint8_t>& bytes;
  size_t pos = 0;
  void need(size_t n) {
    if (bytes.size() - pos < n)
      throw std::runtime_error("vdla programs blob: truncated at byte " + std::to_string(pos));
  }
  uint64_t uint(int n) {
    need(static_cast<size_t>(n));
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t(bytes[pos + i]) << (8 * i);
    pos += static_cast<size_t>(n);
    return v;
  }
};

}  // namespace

const char* regionName(Region r) {
  switch (r) {
    case Region::None: return "none";
    case Region::Constants: return "constants";
    case Region::Io: return "io";
  }
  return "?";
}

std::vector<uint8_t> serializeDeviceModule(const DeviceModule& m, const hw::HwConfig& cfg) {
  hw::IsaLayout layout(cfg);
  std::vector<uint8_t> out(kMagic, kMagic + 8);
  putU32(out, kVersion);
  putU32(out, static_cast<uint32_t>(m.programs.size()));
  putU64(out, m.io_bytes);
  for (const DeviceProgram& p : m.programs) {
    if (p.regions.size() != p.insns.size())
      throw std::runtime_error("program '" + p.name + "': one region per instruction expected");
    putU32(out, static_cast<uint32_t>(p.name.size()));
    out.insert(out.end(), p.name.begin(), p.name.end());
    putU32(out, static_cast<uint32_t>(p.insns.size()));
    for (size_t i = 0; i < p.insns.size(); ++i) {
      const hw::EncodedInstruction e =
          layout.encode(p.insns[i], "program '" + p.name + "' instruction " + std::to_string(i));
      putU64(out, e[0]);
      putU64(out, e[1]);
      out.push_back(static_cast<uint8_t>(p.regions[i]));
    }
  }
  return out;
}

DeviceModule deserializeDeviceModule(const std::vector<uint8_t>& bytes, const hw::HwConfig& cfg) {
  hw::IsaLayout layout(cfg);
  Reader r{bytes};
  r.need(8);
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) throw std::runtime_error("vdla programs blob: bad magic");
  r.pos = 8;
  const uint32_t version = static_cast<uint32_t>(r.uint(4));
  if (version != kVersion)
    throw std::runtime_error("vdla programs blob: version " + std::to_string(version) + ", this runtime reads " +
                             std::to_string(kVersion));
  const uint32_t count = static_cast<uint32_t>(r.uint(4));
  DeviceModule m;
  m.io_bytes = r.uint(8);
  for (uint32_t k = 0; k < count; ++k) {
    DeviceProgram p;
    const uint32_t name_len = static_cast<uint32_t>(r.uint(4));
    r.need(name_len);
    p.name.assign(reinterpret_cast<const char*>(bytes.data() + r.pos), name_len);
    r.pos += name_len;
    const uint32_t n = static_cast<uint32_t>(r.uint(4));
    r.need(size_t(n) * 17);
    p.insns.reserve(n);
    p.regions.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
      hw::EncodedInstruction e{r.uint(8), r.uint(8)};
      p.insns.push_back(layout.decode(e, "program '" + p.name + "' instruction " + std::to_string(i)));
      const uint64_t region = r.uint(1);
      if (region > uint64_t(Region::Io))
        throw std::runtime_error("program '" + p.name + "' instruction " + std::to_string(i) + ": unknown region " +
                                 std::to_string(region));
      p.regions.push_back(static_cast<Region>(region));
    }
    m.programs.push_back(std::move(p));
  }
  if (r.pos != bytes.size()) throw std::runtime_error("vdla programs blob: trailing bytes");
  return m;
}

std::vector<uint8_t> relocateProgram(const DeviceProgram& p, const hw::HwConfig& cfg, uint64_t constants_addr,
                                     uint64_t io_addr) {
  hw::IsaLayout layout(cfg);
  std::vector<uint8_t> out(p.insns.size() * hw::kInstructionBytes);
  for (size_t i = 0; i < p.insns.size(); ++i) {
    hw::Instruction insn = p.insns[i];
    const std::string where = "program '" + p.name + "' instruction " + std::to_string(i);
    if (p.regions[i] != Region::None) {
      if (insn.opcode != hw::Opcode::Load && insn.opcode != hw::Opcode::Store)
        throw std::runtime_error(where + ": only LOAD/STORE carry a DRAM address");
      const uint64_t base = p.regions[i] == Region::Constants ? constants_addr : io_addr;
      const uint32_t entry = cfg.entryBytes(insn.memory);
      if (base % entry != 0)
        throw std::runtime_error(where + ": region base " + std::to_string(base) + " is not aligned to the " +
                                 hw::memoryName(insn.memory) + " entry size " + std::to_string(entry));
      insn.dram_base += base / entry;
    }
    const hw::EncodedInstruction e = layout.encode(insn, where);
    std::memcpy(out.data() + i * hw::kInstructionBytes, e.data(), hw::kInstructionBytes);
  }
  return out;
}

}  // namespace vdla::rt::accel
