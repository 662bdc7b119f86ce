#include "register_status.h"

#include <algorithm>
#include <iomanip>
#include <iterator>
#include <sstream>

#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/hw/registers.h"
#include "vdla/hw/run_status.h"
#include "vdla/sim/execution_stats.h"
#include "vdla/sim/program_stats.h"

namespace vdla::driver {
namespace {

namespace regs = hw::regs;

// The running program as the status decoder reads it (vdla/hw/run_status.h).
hw::InstructionLookup lookup(const hw::HwConfig& cfg, const InstructionReader& read) {
  return [&cfg, &read](uint32_t index) -> std::optional<hw::Instruction> {
    uint8_t bytes[16];
    if (!read || !read(index, bytes)) return std::nullopt;
    hw::EncodedInstruction enc{0, 0};
    for (int b = 0; b < 16; ++b) enc[size_t(b / 8)] |= uint64_t(bytes[b]) << (8 * (b % 8));
    try {
      return hw::IsaLayout(cfg).decode(enc);
    } catch (const std::exception&) {
      return std::nullopt;  // the error may be that it does not decode
    }
  };
}

}  // namespace

void checkConfigurationHash(const hw::HwConfig& cfg, const RegisterReader& reg) {
  const uint64_t hash = (uint64_t(reg(regs::kHashHi)) << 32) | reg(regs::kHashLo);
  if (hash != cfg.hash) {
    std::ostringstream msg;
    msg << "the accelerator reports configuration hash " << std::hex << std::setw(16) << std::setfill('0') << hash
        << " but the config '" << cfg.name << "' has hash " << cfg.hashHex()
        << ": refusing to run on a mismatched bitstream";
    if (hash == 0 || hash == ~uint64_t(0)) msg << " (this value usually means that no VDLA bitstream is loaded)";
    throw Error(msg.str());
  }
}

void startThroughRegisters(const hw::HwConfig& cfg, const RegisterReader& reg, const RegisterWriter& write,
                           uint64_t insn_addr, uint32_t count) {
  checkConfigurationHash(cfg, reg);
  if (reg(regs::kCtrl) & regs::kCtrlRunning)
    throw Error("the accelerator is still running a program (CTRL = RUNNING); reset it before a new run");
  const std::pair<uint32_t, uint32_t> writes[] = {{regs::kInsnAddr, uint32_t(insn_addr)},
                                                  {regs::kInsnAddrHi, uint32_t(insn_addr >> 32)},
                                                  {regs::kInsnCount, count}};
  for (const auto& [offset, value] : writes) {
    write(offset, value);
    const uint32_t back = reg(offset);
    if (back != value) {
      std::ostringstream msg;
      msg << "register read-back mismatch at offset 0x" << std::hex << offset << ": wrote 0x" << value << ", read 0x"
          << back << " (is the register window the VDLA accelerator's?)";
      throw Error(msg.str());
    }
  }
  write(regs::kCtrl, regs::kCtrlStart);
}

std::string describeRegisterError(const hw::HwConfig& cfg, const RegisterReader& reg, const InstructionReader& insn) {
  return hw::describeRunError(reg(regs::kErrorCode), reg(regs::kErrorIndex), reg(regs::kErrorInfo),
                              reg(regs::kInsnCount), lookup(cfg, insn), cfg);
}

sim::ExecutionStats statsAfterRun(const hw::HwConfig& cfg, const RegisterReader& reg, const uint8_t* stream,
                                  uint32_t count) {
  sim::ExecutionStats stats;
  auto counter = [&](uint32_t i) {
    return (uint64_t(reg(regs::kCounters + 8 * i + 4)) << 32) | reg(regs::kCounters + 8 * i);
  };
  stats.gemm_uop_iterations = counter(regs::kCntGemmUops);
  stats.alu_element_ops = counter(regs::kCntAluVectors) * cfg.batch * cfg.block_out;
  // The RTL counts clock cycles per module state (fetch is busy in every
  // run). The HLS top counts scheduling rounds in the cycle counter and
  // leaves the per-module counters at zero: its rounds are not cycles.
  const sim::ExecutionStats::CycleCounters c = sim::cycleCountersFromRegisters(counter);
  if (c.fetch.busy != 0) {
    stats.has_cycle_counters = true;
    stats.cycles = counter(regs::kCntCycles);
    stats.cycle_counters = c;
  }
  if (!stream) return stats;
  // Every instruction of a successful run executed exactly once: what the
  // program text fixes (instructions, bytes moved, multiply-adds) is its
  // count; the hardware's own counters stay.
  const sim::ExecutionStats text = sim::programStats(
      cfg, hw::decodeInstructionStream(hw::IsaLayout(cfg), stream, uint64_t(count) * hw::kInstructionBytes));
  std::copy(std::begin(text.instructions), std::end(text.instructions), std::begin(stats.instructions));
  std::copy(std::begin(text.loads_by_memory), std::end(text.loads_by_memory), std::begin(stats.loads_by_memory));
  std::copy(std::begin(text.dram_bytes_read), std::end(text.dram_bytes_read), std::begin(stats.dram_bytes_read));
  std::copy(std::begin(text.tokens_pushed), std::end(text.tokens_pushed), std::begin(stats.tokens_pushed));
  stats.dram_bytes_written = text.dram_bytes_written;
  stats.padding_entries = text.padding_entries;
  stats.gemm_macs = text.gemm_macs;
  return stats;
}

std::string describeDeadlock(const hw::HwConfig& cfg, const RegisterReader& reg, const InstructionReader& insn) {
  return "deadlock: no module can make progress; " +
         hw::describeWaits(hw::readStatus(reg), lookup(cfg, insn), reg(regs::kInsnCount), cfg);
}

}  // namespace vdla::driver
