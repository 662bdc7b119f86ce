#include "vdla/hw/run_status.h"

#include <sstream>

#include "vdla/hw/registers.h"
#include "vdla/hw/token_ports.h"

namespace vdla::hw {
namespace {

const char* const kModuleNames[] = {"fetch", "load", "compute", "store"};  // ERROR_CODE[9:8], MODULE_STATE order

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

uint32_t tokenCount(uint32_t packed, int q) { return (packed >> (8 * q)) & 0xff; }

// Which token or room the head of register module m (1 load, 2 compute,
// 3 store) waits for, or empty when its counts do not say.
std::string waitReason(const Instruction& insn, int m, uint32_t tokens, const HwConfig& cfg) {
  const TokenPorts p = tokenPorts(Module(m - 1));
  auto name = [](int q) { return std::string(tokenQueueName(TokenQueue(q))); };
  if (insn.pop_prev && p.pop_prev >= 0 && tokenCount(tokens, p.pop_prev) == 0)
    return "a token in the empty " + name(p.pop_prev) + " queue";
  if (insn.pop_next && p.pop_next >= 0 && tokenCount(tokens, p.pop_next) == 0)
    return "a token in the empty " + name(p.pop_next) + " queue";
  if (insn.push_prev && p.push_prev >= 0 && tokenCount(tokens, p.push_prev) >= cfg.token_queue_depth)
    return "room in the full " + name(p.push_prev) + " queue";
  if (insn.push_next && p.push_next >= 0 && tokenCount(tokens, p.push_next) >= cfg.token_queue_depth)
    return "room in the full " + name(p.push_next) + " queue";
  return "";
}

}  // namespace

std::string instructionName(const Instruction& insn) {
  std::string what = opcodeName(insn.opcode);
  if (insn.opcode == Opcode::Load || insn.opcode == Opcode::Store) what += std::string(" ") + memoryName(insn.memory);
  if (insn.opcode == Opcode::Alu) what += std::string(" ") + aluOpName(insn.alu_op);
  return what;
}

std::string describeInstruction(const InstructionLookup& program, uint32_t index) {
  const std::optional<Instruction> insn = program ? program(index) : std::nullopt;
  if (!insn) return "instruction " + std::to_string(index);
  return "instruction " + std::to_string(index) + " (" + instructionName(*insn) + ", " + moduleName(moduleOf(*insn)) +
         " module)";
}

bool StatusSnapshot::operator==(const StatusSnapshot& o) const {
  return module_state == o.module_state && tokens == o.tokens && queues == o.queues && index[0] == o.index[0] &&
         index[1] == o.index[1] && index[2] == o.index[2] && index[3] == o.index[3];
}

StatusSnapshot readStatus(const std::function<uint32_t(uint32_t offset)>& reg) {
  StatusSnapshot s;
  s.module_state = reg(regs::kModuleState);
  for (uint32_t m = 0; m < 4; ++m) s.index[m] = reg(regs::moduleIndexOffset(m));
  s.tokens = reg(regs::kTokens);
  s.queues = reg(regs::kQueues);
  return s;
}

bool isDeadlocked(const StatusSnapshot& s) {
  const uint32_t f = s.state(0);
  if (f != regs::kStFetchDone && f != regs::kStFetchWaitQueue) return false;
  bool all_idle = true;
  for (int m = 1; m < 4; ++m) {
    const uint32_t st = s.state(m);
    if (st != regs::kStIdle && st != regs::kStWaitToken && st != regs::kStWaitRoom) return false;
    if (st != regs::kStIdle) all_idle = false;
  }
  return !(all_idle && f == regs::kStFetchDone);
}

std::string describeWaits(const StatusSnapshot& s, const InstructionLookup& program, uint32_t count,
                          const HwConfig& cfg) {
  std::ostringstream msg;
  for (int m = 1; m < 4; ++m) {
    msg << (m > 1 ? "; " : "") << kModuleNames[m] << " module ";
    const uint32_t st = s.state(m);
    const uint32_t index = s.index[m];
    // A module whose command queue is empty is idle whatever its state says.
    if (st == regs::kStIdle || (s.queues >> (4 + m - 1)) & 1) {
      msg << "is idle";
      continue;
    }
    if (st != regs::kStWaitToken && st != regs::kStWaitRoom) {
      msg << "is " << regs::stateName(st) << " at " << describeInstruction(program, index);
      continue;
    }
    msg << "waits at " << describeInstruction(program, index) << " for ";
    const std::optional<Instruction> insn = program ? program(index) : std::nullopt;
    const std::string reason = insn ? waitReason(*insn, m, s.tokens, cfg) : "";
    if (!reason.empty())
      msg << reason;
    else
      msg << (st == regs::kStWaitToken ? "a token" : "room in a token queue");
  }
  if (s.state(0) == regs::kStFetchWaitQueue && s.index[0] < count)
    msg << "; fetch waits to dispatch " << describeInstruction(program, s.index[0])
        << " into its full command queue (depth " << cfg.command_queue_depth << ")";
  else if (s.state(0) != regs::kStFetchDone)
    msg << "; fetch is at instruction " << s.index[0] << " (" << regs::stateName(s.state(0)) << ")";
  msg << " (tokens";
  for (int q = 0; q < kNumTokenQueues; ++q)
    msg << (q ? ", " : " ") << tokenQueueName(TokenQueue(q)) << " " << tokenCount(s.tokens, q);
  msg << ")";
  return msg.str();
}

std::string describeRunError(uint32_t code_reg, uint32_t index, uint32_t info, uint32_t count,
                             const InstructionLookup& program, const HwConfig& cfg, const std::string& axi_detail) {
  const uint32_t code = code_reg & 0xff;
  const uint32_t module = (code_reg >> 8) & 3;
  const std::string where = describeInstruction(program, index);
  const std::optional<Instruction> insn = program ? program(index) : std::nullopt;
  const bool store = insn && insn->opcode == Opcode::Store;
  std::ostringstream msg;
  msg << where << ": ";
  switch (code) {
    case regs::kErrOpcode: msg << "unknown opcode"; break;
    case regs::kErrMemory:
      msg << "memory not legal for LOAD/STORE (LOAD takes UOP, WGT, INP, ACC or ACC8; STORE takes OUT)";
      break;
    case regs::kErrAluOp: msg << "unknown ALU op (or one the config's extensions do not include)"; break;
    case regs::kErrStrayBits: msg << "bits set outside the opcode's fields (corrupt instruction?)"; break;
    case regs::kErrImm: msg << "ALU imm must be 0 when use_imm is 0"; break;
    case regs::kErrDwShape:
      msg << "DWGEMM taps must be in [1, " << cfg.depthwise_taps
          << "] (the config's depthwise_taps) and stride at least 1";
      break;
    case regs::kErrFlags:
      if (insn && insn->opcode == Opcode::Gemm && insn->requant && insn->reset) {
        msg << "GEMM requant and reset exclude each other";
        break;
      }
      msg << (insn && moduleOf(*insn) == Module::Store
                  ? "pop_next/push_next name the stage after store, which does not exist"
              : insn && moduleOf(*insn) == Module::Load
                  ? "pop_prev/push_prev name the stage before load, which does not exist"
                  : "pop/push flags name a stage that does not exist for this module");
      break;
    case regs::kErrPad: msg << (store ? "STORE cannot pad" : "LOAD UOP cannot pad"); break;
    case regs::kErrFinishNotLast:
      msg << "FINISH must be the last instruction";
      if (count > index) msg << ", but " << (count - index - 1) << " follow it";
      break;
    case regs::kErrNoFinish:
      return "program of " + std::to_string(count) +
             " instructions does not end with FINISH (the last instruction is " +
             describeInstruction(program, count ? count - 1 : 0) + ")";
    case regs::kErrEmpty: return "program is empty (it must end with FINISH)";
    case regs::kErrSramRange: {
      const Memory m = store ? Memory::Output : insn ? insn->memory : Memory::Input;
      msg << (store ? "reads " : "writes ") << memoryName(m == Memory::Acc8 ? Memory::Acc : m) << " entries [";
      if (insn)
        msg << insn->sram_base;
      else
        msg << "?";
      msg << ", " << info << ") but the memory has " << cfg.depth(m) << " entries";
      break;
    }
    case regs::kErrUopRange:
      msg << "micro-op range [" << (insn ? insn->uop_begin : 0) << ", " << info
          << ") is not inside the micro-op memory of " << cfg.depth(Memory::Uop) << " entries";
      break;
    case regs::kErrDstRange:
      msg << "dst (accumulator) index reaches " << info << " but the ACC memory has " << cfg.depth(Memory::Acc)
          << " entries";
      break;
    case regs::kErrSrcRange: {
      const bool gemm = insn && (insn->opcode == Opcode::Gemm || insn->opcode == Opcode::DwGemm);
      if (insn && insn->opcode == Opcode::SetReq) {
        msg << "SETREQ's bias entry " << info << " is past the ACC memory of " << cfg.depth(Memory::Acc) << " entries";
        break;
      }
      msg << (gemm ? "src (input)" : "src (accumulator)") << " index reaches " << info << " but the "
          << (gemm ? "INP" : "ACC") << " memory has " << cfg.depth(gemm ? Memory::Input : Memory::Acc) << " entries";
      break;
    }
    case regs::kErrWgtRange:
      msg << "wgt (weight) index reaches " << info << " but the WGT memory has " << cfg.depth(Memory::Weight)
          << " entries";
      break;
    case regs::kErrAxiRead:
    case regs::kErrAxiWrite: {
      const std::string generic = "DRAM range at " + hex(info) + " is not inside an allocated buffer (AXI " +
                                  (code == regs::kErrAxiRead ? "read" : "write") + " response error)";
      const std::string detail = axi_detail.empty() ? generic : axi_detail;
      if (module == 0) return "instruction fetch: " + detail;
      msg << detail;
      break;
    }
    case regs::kErrAddrOverflow:
      msg << "DRAM row at entry " << info
          << " lies beyond the 32-bit AXI address space (not inside an allocated buffer)";
      break;
    case regs::kErrTokensLeft: {
      std::ostringstream t;
      bool first = true;
      for (int q = 0; q < kNumTokenQueues; ++q) {
        const uint32_t n = tokenCount(info, q);
        if (!n) continue;
        t << (first ? "" : ", ") << n << " unconsumed token(s) in the " << tokenQueueName(TokenQueue(q)) << " queue";
        first = false;
      }
      return "program finished with " + t.str() + " (pushes and pops do not balance)";
    }
    default: msg << "hardware error code " << code << " (info " << hex(info) << ")"; break;
  }
  const char* name = regs::errorName(code);
  msg << " [" << kModuleNames[module] << " reported " << (name ? name : "error") << ", code " << code << "]";
  return msg.str();
}

}  // namespace vdla::hw
