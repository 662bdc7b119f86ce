// RandomProgram helpers: relocation to physical buffers, listings for
// failure reports, and which instruction wrote a DRAM byte.
#include <sstream>

#include "vdla/hw/assembly.h"
#include "vdla/hw/error.h"
#include "vdla/sim/progen.h"

namespace vdla::sim::progen {

int RandomProgram::bufferIndex(const std::string& name) const {
  for (size_t i = 0; i < buffers.size(); ++i)
    if (buffers[i].name == name) return int(i);
  return -1;
}

std::vector<hw::Instruction> relocate(const hw::HwConfig& cfg, const RandomProgram& program,
                                      const std::vector<uint64_t>& buffer_addrs) {
  if (buffer_addrs.size() != program.buffers.size())
    throw Error("relocate: " + std::to_string(buffer_addrs.size()) + " addresses for " +
                std::to_string(program.buffers.size()) + " buffers");
  std::vector<uint64_t> base_entry(buffer_addrs.size());
  for (size_t b = 0; b < buffer_addrs.size(); ++b) {
    const uint32_t entry = cfg.entryBytes(program.buffers[b].memory);
    if (buffer_addrs[b] % entry != 0) {
      std::ostringstream msg;
      msg << "relocate: buffer '" << program.buffers[b].name << "' at 0x" << std::hex << buffer_addrs[b] << std::dec
          << " is not aligned to its " << entry << "-byte " << hw::memoryName(program.buffers[b].memory) << " entries";
      throw Error(msg.str());
    }
    base_entry[b] = buffer_addrs[b] / entry;
  }
  std::vector<hw::Instruction> out = program.instructions;
  for (size_t i = 0; i < out.size(); ++i)
    if (program.buffer_of[i] >= 0) out[i].dram_base += base_entry[size_t(program.buffer_of[i])];
  return out;
}

std::string describeProgram(const RandomProgram& program) {
  std::ostringstream s;
  s << "; random program, seed " << program.seed << ", config " << program.config_name << ", "
    << program.instructions.size() << " instructions (" << program.nops << " NOPs), " << program.uops.size()
    << " micro-ops\n; buffers (dram= is an entry offset into the buffer named after the instruction):\n";
  for (size_t b = 0; b < program.buffers.size(); ++b)
    s << ";   " << b << " " << program.buffers[b].name << ": " << program.buffers[b].init.size() << " bytes of "
      << hw::memoryName(program.buffers[b].memory) << " entries" << (program.buffers[b].written ? ", written" : "")
      << "\n";
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    s << hw::disassemble(program.instructions[i]) << "  ; #" << i;
    if (program.buffer_of[i] >= 0) s << " buffer " << program.buffers[size_t(program.buffer_of[i])].name;
    s << "\n";
  }
  return s.str();
}

int lastWriterOf(const hw::HwConfig& cfg, const RandomProgram& program, int buffer, uint64_t offset) {
  const uint64_t entry_bytes = cfg.entryBytes(hw::Memory::Output);
  const uint64_t entry = offset / entry_bytes;
  int last = -1;
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const hw::Instruction& insn = program.instructions[i];
    if (insn.opcode != hw::Opcode::Store || program.buffer_of[i] != buffer) continue;
    for (uint64_t r = 0; r < insn.y_size; ++r) {
      const uint64_t first = insn.dram_base + r * insn.x_stride;
      if (entry >= first && entry < first + insn.x_size) last = int(i);
    }
  }
  return last;
}

}  // namespace vdla::sim::progen
