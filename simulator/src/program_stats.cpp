#include "vdla/sim/program_stats.h"

#include "vdla/sim/fsim.h"

namespace vdla::sim {

ExecutionStats programStats(const hw::HwConfig& cfg, const std::vector<hw::Instruction>& program) {
  ExecutionStats s;
  for (const hw::Instruction& insn : program) {
    s.instructions[int(insn.opcode)]++;
    const uint64_t iterations = uint64_t(insn.iter_out) * insn.iter_in * (insn.uop_end - insn.uop_begin);
    switch (insn.opcode) {
      case hw::Opcode::Load: {
        const int m = int(insn.memory);
        const uint64_t rows = uint64_t(insn.y_pad_top) + insn.y_size + insn.y_pad_bottom;
        const uint64_t cols = uint64_t(insn.x_pad_left) + insn.x_size + insn.x_pad_right;
        const uint64_t data = uint64_t(insn.y_size) * insn.x_size;
        s.loads_by_memory[m]++;
        s.dram_bytes_read[m] += data * cfg.entryBytes(insn.memory);
        s.padding_entries += rows * cols - data;
        break;
      }
      case hw::Opcode::Store:
        // STORE INP (inp_writeback) writes on-chip INP, not DRAM.
        if (insn.memory != hw::Memory::Input)
          s.dram_bytes_written += uint64_t(insn.y_size) * insn.x_size * cfg.entryBytes(hw::Memory::Output);
        break;
      case hw::Opcode::Gemm:
      case hw::Opcode::DwGemm:
        s.gemm_uop_iterations += iterations;
        s.gemm_macs += hw::gemmMacs(insn, cfg);
        break;
      case hw::Opcode::Alu: s.alu_element_ops += iterations * cfg.batch * cfg.block_out; break;
      case hw::Opcode::SetReq:
      case hw::Opcode::Finish: break;
    }
    // Which queue a flag names depends on the module.
    const hw::TokenPorts ports = hw::tokenPorts(hw::moduleOf(insn));
    if (insn.push_next && ports.push_next >= 0) s.tokens_pushed[ports.push_next]++;
    if (insn.push_prev && ports.push_prev >= 0) s.tokens_pushed[ports.push_prev]++;
  }
  return s;
}

}  // namespace vdla::sim
