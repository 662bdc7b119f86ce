#include "register_status.h"

#include <iomanip>
#include <sstream>

#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/hw/registers.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::driver {
namespace {

namespace regs = hw::regs;

const char* kModuleNames[4] = {"fetch", "load", "compute", "store"};

// "instruction 3 (LOAD INP, load module)", or "instruction 3" when it cannot
// be read or decoded (the error may be that it does not decode).
std::string describe(const hw::HwConfig& cfg, const InstructionReader& read, uint32_t index, hw::Instruction* out = nullptr) {
  uint8_t bytes[16];
  if (!read(index, bytes)) return "instruction " + std::to_string(index);
  hw::EncodedInstruction enc{0, 0};
  for (int b = 0; b < 16; ++b) enc[size_t(b / 8)] |= uint64_t(bytes[b]) << (8 * (b % 8));
  try {
    const hw::Instruction insn = hw::IsaLayout(cfg).decode(enc);
    if (out) *out = insn;
    std::string what = hw::opcodeName(insn.opcode);
    if (insn.opcode == hw::Opcode::Load || insn.opcode == hw::Opcode::Store)
      what += std::string(" ") + hw::memoryName(insn.memory);
    if (insn.opcode == hw::Opcode::Alu) what += std::string(" ") + hw::aluOpName(insn.alu_op);
    return "instruction " + std::to_string(index) + " (" + what + ", " + hw::moduleName(hw::moduleOf(insn)) +
           " module)";
  } catch (const std::exception&) {
    return "instruction " + std::to_string(index);
  }
}

std::string hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

uint32_t tokenCount(uint32_t packed, sim::TokenQueue q) { return (packed >> (8 * int(q))) & 0xff; }

// Which token or room the head of `module` (1 load, 2 compute, 3 store) waits for.
std::string waitReason(const hw::HwConfig& cfg, const hw::Instruction& insn, int module, uint32_t tokens) {
  using sim::TokenQueue;
  const int none = -1;
  const int pop_prev = module == 2 ? int(TokenQueue::LoadToCompute) : module == 3 ? int(TokenQueue::ComputeToStore) : none;
  const int pop_next = module == 1 ? int(TokenQueue::ComputeToLoad) : module == 2 ? int(TokenQueue::StoreToCompute) : none;
  const int push_prev = module == 2 ? int(TokenQueue::ComputeToLoad) : module == 3 ? int(TokenQueue::StoreToCompute) : none;
  const int push_next = module == 1 ? int(TokenQueue::LoadToCompute) : module == 2 ? int(TokenQueue::ComputeToStore) : none;
  auto empty = [&](bool flag, int q) { return flag && q != none && tokenCount(tokens, TokenQueue(q)) == 0; };
  auto full = [&](bool flag, int q) {
    return flag && q != none && tokenCount(tokens, TokenQueue(q)) >= cfg.token_queue_depth;
  };
  if (empty(insn.pop_prev, pop_prev))
    return std::string("a token in the empty ") + sim::tokenQueueName(TokenQueue(pop_prev)) + " queue";
  if (empty(insn.pop_next, pop_next))
    return std::string("a token in the empty ") + sim::tokenQueueName(TokenQueue(pop_next)) + " queue";
  if (full(insn.push_prev, push_prev))
    return std::string("room in the full ") + sim::tokenQueueName(TokenQueue(push_prev)) + " queue";
  if (full(insn.push_next, push_next))
    return std::string("room in the full ") + sim::tokenQueueName(TokenQueue(push_next)) + " queue";
  return "its tokens (state unknown)";
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
  const uint32_t code_reg = reg(regs::kErrorCode);
  const uint32_t code = code_reg & 0xff, module = (code_reg >> 8) & 3;
  const uint32_t index = reg(regs::kErrorIndex), info = reg(regs::kErrorInfo);
  hw::Instruction decoded;
  const std::string where = describe(cfg, insn, index, &decoded);
  const uint32_t count = reg(regs::kInsnCount);
  switch (code) {
    case regs::kErrOpcode: return where + ": unknown opcode";
    case regs::kErrMemory: return where + ": memory not legal for LOAD/STORE";
    case regs::kErrAluOp: return where + ": unknown ALU op";
    case regs::kErrStrayBits: return where + ": bits set outside the opcode's fields";
    case regs::kErrImm: return where + ": ALU imm must be 0 when use_imm is 0";
    case regs::kErrFlags:
      return where + (hw::moduleOf(decoded) == hw::Module::Store
                          ? ": pop_next/push_next name the stage after store, which does not exist"
                          : ": pop_prev/push_prev name the stage before load, which does not exist");
    case regs::kErrPad: return where + (decoded.opcode == hw::Opcode::Store ? ": STORE cannot pad" : ": LOAD UOP cannot pad");
    case regs::kErrFinishNotLast:
      return where + ": FINISH must be the last instruction, but " + std::to_string(count - index - 1) + " follow it";
    case regs::kErrNoFinish:
      return "program of " + std::to_string(count) + " instructions does not end with FINISH";
    case regs::kErrEmpty: return "program is empty (it must end with FINISH)";
    case regs::kErrSramRange: {
      const bool store = decoded.opcode == hw::Opcode::Store;
      const hw::Memory m = store ? hw::Memory::Output : decoded.memory;
      return where + (store ? ": reads " : ": writes ") + hw::memoryName(m == hw::Memory::Acc8 ? hw::Memory::Acc : m) +
             " entries [" + std::to_string(decoded.sram_base) + ", " + std::to_string(info) +
             ") but the memory has " + std::to_string(cfg.depth(m)) + " entries";
    }
    case regs::kErrUopRange:
      return where + ": micro-op range [" + std::to_string(decoded.uop_begin) + ", " + std::to_string(info) +
             ") is not inside the micro-op memory of " + std::to_string(cfg.depth(hw::Memory::Uop)) + " entries";
    case regs::kErrDstRange:
      return where + ": dst (accumulator) index reaches " + std::to_string(info) + " but the ACC memory has " +
             std::to_string(cfg.depth(hw::Memory::Acc)) + " entries";
    case regs::kErrSrcRange: {
      const bool alu = decoded.opcode == hw::Opcode::Alu;
      const hw::Memory m = alu ? hw::Memory::Acc : hw::Memory::Input;
      return where + (alu ? ": src (accumulator)" : ": src (input)") + " index reaches " + std::to_string(info) +
             " but the " + hw::memoryName(m) + " memory has " + std::to_string(cfg.depth(m)) + " entries";
    }
    case regs::kErrWgtRange:
      return where + ": wgt (weight) index reaches " + std::to_string(info) + " but the WGT memory has " +
             std::to_string(cfg.depth(hw::Memory::Weight)) + " entries";
    case regs::kErrAxiRead:
    case regs::kErrAxiWrite:
      return where + ": DRAM range at " + hex(info) + " is not inside an allocated buffer (AXI " +
             (code == regs::kErrAxiRead ? "read" : "write") + " response error)";
    case regs::kErrAddrOverflow: return where + ": address does not fit in 32 bits (" + hex(info) + ")";
    case regs::kErrTokensLeft: {
      std::string msg;
      for (int q = 0; q < 4; ++q) {
        const uint32_t n = (info >> (8 * q)) & 0xff;
        if (n == 0) continue;
        msg += (msg.empty() ? "program finished with " : "; and ") + std::to_string(n) + " unconsumed token(s) in the " +
               sim::tokenQueueName(sim::TokenQueue(q)) + " queue";
      }
      return msg + " (pushes and pops do not balance)";
    }
    default:
      return where + ": error code " + std::to_string(code) + " from the " + kModuleNames[module] +
             " module (info " + hex(info) + ")";
  }
}

sim::ExecutionStats statsAfterRun(const hw::HwConfig& cfg, const RegisterReader& reg, const uint8_t* stream,
                                  uint32_t count) {
  sim::ExecutionStats stats;
  auto counter = [&](uint32_t i) {
    return (uint64_t(reg(regs::kCounters + 8 * i + 4)) << 32) | reg(regs::kCounters + 8 * i);
  };
  stats.gemm_uop_iterations = counter(regs::kCntGemmUops);
  stats.alu_element_ops = counter(regs::kCntAluVectors) * cfg.batch * cfg.block_out;
  // The RTL counts clock cycles per module state (counters 1-15; fetch is
  // busy in every run). The HLS top counts scheduling rounds in counter 0 and
  // leaves 1-15 at zero: its rounds are not reported as cycles.
  uint64_t per_module[16] = {};
  bool clocked = false;
  for (uint32_t i = 1; i < 16; ++i) clocked = (per_module[i] = counter(i)) != 0 || clocked;
  if (clocked) {
    stats.has_cycle_counters = true;
    stats.cycles = counter(regs::kCntCycles);
    auto module = [&](uint32_t busy, int token, uint32_t room, uint32_t dram) {
      sim::ExecutionStats::ModuleCycles m;
      m.busy = per_module[busy];
      m.wait_token = token < 0 ? 0 : per_module[token];
      m.wait_room = per_module[room];
      m.wait_dram = per_module[dram];
      return m;
    };
    auto& c = stats.cycle_counters;  // layout: docs/hardware.md, "Counters"
    c.fetch = module(1, -1, 3, 2);
    c.load = module(4, 5, 6, 7);
    c.compute = module(8, 9, 10, 11);
    c.store = module(12, 13, 14, 15);
    c.gemm_uop_cycles = stats.gemm_uop_iterations;
    c.alu_cycles = counter(regs::kCntAluVectors);
  }
  if (!stream) return stats;
  // Every instruction of a successful run executed exactly once.
  for (const hw::Instruction& insn :
       hw::decodeInstructionStream(hw::IsaLayout(cfg), stream, uint64_t(count) * hw::kInstructionBytes)) {
    stats.instructions[int(insn.opcode)]++;
    if (insn.opcode == hw::Opcode::Gemm && !insn.reset)
      stats.gemm_macs += uint64_t(insn.iter_out) * insn.iter_in * (insn.uop_end - insn.uop_begin) * cfg.macsPerCycle();
  }
  return stats;
}

std::string describeDeadlock(const hw::HwConfig& cfg, const RegisterReader& reg, const InstructionReader& insn) {
  const uint32_t states = reg(regs::kModuleState), tokens = reg(regs::kTokens), queues = reg(regs::kQueues);
  std::ostringstream msg;
  msg << "deadlock: no module can make progress";
  for (int m = 1; m <= 3; ++m) {
    msg << "; " << kModuleNames[m] << " module ";
    const uint32_t state = (states >> (4 * m)) & 0xf;
    if ((queues >> (4 + m - 1)) & 1 || state == regs::kStIdle) {
      msg << "is idle";
      continue;
    }
    hw::Instruction head;
    const uint32_t index = reg(regs::kFetchIndex + 4 * uint32_t(m));
    const std::string where = describe(cfg, insn, index, &head);
    msg << "waits at " << where << " for " << waitReason(cfg, head, m, tokens);
  }
  if ((states & 0xf) == regs::kStFetchWaitQueue) {
    const uint32_t pending = reg(regs::kFetchIndex) - 1;  // fetched, not yet dispatched
    msg << "; fetch waits to dispatch " << describe(cfg, insn, pending) << " into its full command queue (depth "
        << cfg.command_queue_depth << ")";
  }
  msg << " (tokens l->c " << tokenCount(tokens, sim::TokenQueue::LoadToCompute) << ", c->l "
      << tokenCount(tokens, sim::TokenQueue::ComputeToLoad) << ", c->s "
      << tokenCount(tokens, sim::TokenQueue::ComputeToStore) << ", s->c "
      << tokenCount(tokens, sim::TokenQueue::StoreToCompute) << ")";
  return msg.str();
}

}  // namespace vdla::driver
