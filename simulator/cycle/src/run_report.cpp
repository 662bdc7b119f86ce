#include "run_report.h"

#include <sstream>

#include "rtl_status.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::sim {
namespace {

const char* kModuleNames[] = {"fetch", "load", "compute", "store"};

std::string queueName(int q) { return tokenQueueName(TokenQueue(q)); }

}  // namespace

std::string ProgramView::name(uint32_t index) const {
  if (index >= insns.size() || !insns[index]) return "instruction";
  const hw::Instruction& insn = *insns[index];
  std::string what = hw::opcodeName(insn.opcode);
  if (insn.opcode == hw::Opcode::Load || insn.opcode == hw::Opcode::Store)
    what += std::string(" ") + hw::memoryName(insn.memory);
  if (insn.opcode == hw::Opcode::Alu) what += std::string(" ") + hw::aluOpName(insn.alu_op);
  return what;
}

std::string ProgramView::describe(uint32_t index) const {
  if (index >= insns.size() || !insns[index]) return "instruction " + std::to_string(index);
  return "instruction " + std::to_string(index) + " (" + name(index) + ", " +
         hw::moduleName(hw::moduleOf(*insns[index])) + " module)";
}

bool StatusSnapshot::operator==(const StatusSnapshot& o) const {
  return module_state == o.module_state && tokens == o.tokens && queues == o.queues && index[0] == o.index[0] &&
         index[1] == o.index[1] && index[2] == o.index[2] && index[3] == o.index[3];
}

bool isDeadlocked(const StatusSnapshot& s) {
  const uint32_t f = s.state(0);
  if (f != rtl::kFetchDone && f != rtl::kFetchWaitQueue) return false;
  bool all_idle = true;
  for (int m = 1; m < 4; ++m) {
    const uint32_t st = s.state(m);
    if (st != rtl::kIdle && st != rtl::kWaitToken && st != rtl::kWaitRoom) return false;
    if (st != rtl::kIdle) all_idle = false;
  }
  // Everything idle with fetch done is the end of a run, not a deadlock.
  return !(all_idle && f == rtl::kFetchDone);
}

std::string describeWaits(const StatusSnapshot& s, const ProgramView& program, uint32_t count,
                          const hw::HwConfig& cfg) {
  std::ostringstream msg;
  auto tokens = [&](int q) { return (s.tokens >> (8 * q)) & 0xff; };
  for (int m = 1; m < 4; ++m) {
    msg << (m > 1 ? "; " : "") << kModuleNames[m] << " module ";
    const uint32_t st = s.state(m);
    const uint32_t index = s.index[m];
    if (st == rtl::kIdle) {
      msg << "is idle";
      continue;
    }
    if (st != rtl::kWaitToken && st != rtl::kWaitRoom) {
      msg << "is " << rtl::stateName(st) << " at " << program.describe(index);
      continue;
    }
    msg << "waits at " << program.describe(index) << " for ";
    if (index >= program.insns.size() || !program.insns[index]) {
      msg << (st == rtl::kWaitToken ? "a token" : "room in a token queue");
      continue;
    }
    const hw::Instruction& insn = *program.insns[index];
    // Queues a module pops (prev, next) and pushes (prev, next), as in fsim.
    const int pop_prev = m == 2 ? 0 : 2, pop_next = m == 1 ? 1 : 3;
    const int push_prev = m == 2 ? 1 : 3, push_next = m == 1 ? 0 : 2;
    if (insn.pop_prev && tokens(pop_prev) == 0)
      msg << "a token in the empty " << queueName(pop_prev) << " queue";
    else if (insn.pop_next && tokens(pop_next) == 0)
      msg << "a token in the empty " << queueName(pop_next) << " queue";
    else if (insn.push_prev && tokens(push_prev) >= cfg.token_queue_depth)
      msg << "room in the full " << queueName(push_prev) << " queue";
    else if (insn.push_next && tokens(push_next) >= cfg.token_queue_depth)
      msg << "room in the full " << queueName(push_next) << " queue";
    else
      msg << (st == rtl::kWaitToken ? "a token" : "queue room");
  }
  if (s.state(0) == rtl::kFetchWaitQueue && s.index[0] < count)
    msg << "; fetch waits to dispatch " << program.describe(s.index[0])
        << " into its full command queue (depth " << cfg.command_queue_depth << ")";
  else if (s.state(0) != rtl::kFetchDone)
    msg << "; fetch is at instruction " << s.index[0] << " (" << rtl::stateName(s.state(0)) << ")";
  return msg.str();
}

std::string describeError(uint32_t code_reg, uint32_t index, uint32_t info, const ProgramView& program,
                          const hw::HwConfig& cfg, const std::string& axi_error) {
  const uint32_t code = code_reg & 0xff;
  const uint32_t module = (code_reg >> 8) & 3;
  const std::string where = program.describe(index);
  const hw::Instruction* insn = index < program.insns.size() && program.insns[index] ? &*program.insns[index] : nullptr;
  std::ostringstream msg;
  msg << where << ": ";
  switch (code) {
    case rtl::kOpcode: msg << "unknown opcode"; break;
    case rtl::kMemory: msg << "invalid memory for LOAD/STORE (LOAD takes UOP, WGT, INP, ACC or ACC8; STORE takes OUT)"; break;
    case rtl::kAluOp: msg << "unknown ALU op"; break;
    case rtl::kStrayBits: msg << "bits set outside the instruction's fields (corrupt instruction?)"; break;
    case rtl::kImm: msg << "ALU imm must be 0 when use_imm is 0"; break;
    case rtl::kFlags: msg << "pop/push flags name a stage that does not exist for this module"; break;
    case rtl::kPad: msg << "padding is only allowed on LOAD WGT/INP/ACC/ACC8"; break;
    case rtl::kFinishNotLast: msg << "FINISH must be the last instruction"; break;
    case rtl::kNoFinish: msg << "the last instruction is not FINISH"; break;
    case rtl::kEmpty: return "program is empty (it must end with FINISH)";
    case rtl::kSramRange: {
      const hw::Memory m = insn ? insn->memory : hw::Memory::Input;
      msg << (insn && insn->opcode == hw::Opcode::Store ? "reads OUT entries up to " : "writes entries up to ") << info
          << " but the " << hw::memoryName(m == hw::Memory::Acc8 ? hw::Memory::Acc : m) << " memory has "
          << cfg.depth(m) << " entries";
      break;
    }
    case rtl::kUopRange:
      msg << "micro-op range [" << (insn ? insn->uop_begin : 0) << ", " << info
          << ") is not inside the micro-op memory of " << cfg.depth(hw::Memory::Uop) << " entries";
      break;
    case rtl::kDstRange:
      msg << "dst (accumulator) index reaches " << info << " but the ACC memory has " << cfg.depth(hw::Memory::Acc)
          << " entries";
      break;
    case rtl::kSrcRange: {
      const bool gemm = insn && insn->opcode == hw::Opcode::Gemm;
      msg << (gemm ? "src (input)" : "src (accumulator)") << " index reaches " << info << " but the "
          << (gemm ? "INP" : "ACC") << " memory has " << cfg.depth(gemm ? hw::Memory::Input : hw::Memory::Acc)
          << " entries";
      break;
    }
    case rtl::kWgtRange:
      msg << "wgt (weight) index reaches " << info << " but the WGT memory has " << cfg.depth(hw::Memory::Weight)
          << " entries";
      break;
    case rtl::kAxiRead:
    case rtl::kAxiWrite:
      if (module == 0) return "instruction fetch: " + (axi_error.empty() ? std::string("AXI read error") : axi_error);
      msg << (axi_error.empty() ? std::string(code == rtl::kAxiRead ? "AXI read error" : "AXI write error")
                                : axi_error);
      break;
    case rtl::kAddrOverflow:
      msg << "DRAM row at entry " << info << " lies beyond the 32-bit AXI address space (not inside an allocated buffer)";
      break;
    case rtl::kTokensLeft: {
      std::ostringstream t;
      bool first = true;
      for (int q = 0; q < 4; ++q) {
        const uint32_t n = (info >> (8 * q)) & 0xff;
        if (!n) continue;
        t << (first ? "" : ", ") << n << " unconsumed token(s) in the " << queueName(q) << " queue";
        first = false;
      }
      return "program finished with " + t.str() + " (pushes and pops do not balance)";
    }
    default: msg << "hardware error code " << code; break;
  }
  msg << " [" << kModuleNames[module] << " reported error code " << code << "]";
  return msg.str();
}

}  // namespace vdla::sim
