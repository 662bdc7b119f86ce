#include "vdla/sim/fsim.h"

#include <deque>
#include <sstream>

#include "datapath.h"
#include "vdla/hw/error.h"
#include "vdla/hw/program_binary.h"
#include "vdla/hw/run_status.h"

namespace vdla::sim {
namespace {

using hw::Instruction;
using hw::Module;

std::string describe(const std::vector<Instruction>& program, size_t index) {
  return hw::describeInstruction([&](uint32_t i) { return std::optional<Instruction>(program[i]); }, uint32_t(index));
}

using hw::TokenPorts;
// Load has no previous stage and store no next one; checkProgramStructure
// rejects flags that name them.
TokenPorts portsOf(Module m) { return hw::tokenPorts(m); }

}  // namespace

void checkProgramStructure(const std::vector<Instruction>& program) {
  if (program.empty()) throw Error("program is empty (it must end with FINISH)");
  for (size_t i = 0; i < program.size(); ++i) {
    const Instruction& insn = program[i];
    const Module m = hw::moduleOf(insn);
    if (insn.opcode == hw::Opcode::Finish && i + 1 != program.size())
      throw Error(describe(program, i) + ": FINISH must be the last instruction, but " +
                  std::to_string(program.size() - i - 1) + " follow it");
    if (m == Module::Load && (insn.pop_prev || insn.push_prev))
      throw Error(describe(program, i) + ": pop_prev/push_prev name the stage before load, which does not exist");
    if (m == Module::Store && (insn.pop_next || insn.push_next))
      throw Error(describe(program, i) + ": pop_next/push_next name the stage after store, which does not exist");
    bool padded = insn.y_pad_top || insn.y_pad_bottom || insn.x_pad_left || insn.x_pad_right;
    if (insn.opcode == hw::Opcode::Store && padded) throw Error(describe(program, i) + ": STORE cannot pad");
    if (insn.opcode == hw::Opcode::Load && insn.memory == hw::Memory::Uop && padded)
      throw Error(describe(program, i) + ": LOAD UOP cannot pad");
  }
  if (program.back().opcode != hw::Opcode::Finish)
    throw Error("program of " + std::to_string(program.size()) + " instructions does not end with FINISH");
}

FunctionalSimulator::FunctionalSimulator(const hw::HwConfig& cfg, Dram& dram)
    : cfg_(cfg), layout_(cfg), dram_(dram), datapath_(std::make_unique<Datapath>(cfg, dram)) {}

FunctionalSimulator::~FunctionalSimulator() = default;

ExecutionStats FunctionalSimulator::run(uint64_t insn_addr, uint32_t count, const std::atomic<bool>* cancel) {
  const uint64_t bytes = uint64_t(count) * hw::kInstructionBytes;
  const uint8_t* stream = dram_.map(insn_addr, bytes);
  if (!stream) {
    std::ostringstream msg;
    msg << "instruction fetch: " << count << " instructions at 0x" << std::hex << insn_addr << " (" << std::dec << bytes
        << " bytes) are not inside an allocated buffer";
    throw Error(msg.str());
  }
  return run(hw::decodeInstructionStream(layout_, stream, bytes), cancel);
}

ExecutionStats FunctionalSimulator::run(const std::vector<Instruction>& program, const std::atomic<bool>* cancel) {
  checkProgramStructure(program);
  ExecutionStats stats;
  const size_t n = program.size();
  const uint32_t cmd_depth = cfg_.command_queue_depth;
  const uint32_t token_depth = cfg_.token_queue_depth;
  std::deque<size_t> commands[3];
  uint32_t tokens[4] = {0, 0, 0, 0};
  size_t next_fetch = 0;
  bool finished = false;

  // Returns "" if the instruction can run now, otherwise what it waits for.
  auto blockedOn = [&](const Instruction& insn, const TokenPorts& ports) -> std::string {
    if (insn.pop_prev && tokens[ports.pop_prev] == 0)
      return std::string("a token in the empty ") + tokenQueueName(TokenQueue(ports.pop_prev)) + " queue";
    if (insn.pop_next && tokens[ports.pop_next] == 0)
      return std::string("a token in the empty ") + tokenQueueName(TokenQueue(ports.pop_next)) + " queue";
    if (insn.push_prev && tokens[ports.push_prev] >= token_depth)
      return std::string("room in the full ") + tokenQueueName(TokenQueue(ports.push_prev)) + " queue";
    if (insn.push_next && tokens[ports.push_next] >= token_depth)
      return std::string("room in the full ") + tokenQueueName(TokenQueue(ports.push_next)) + " queue";
    return "";
  };

  while (true) {
    bool progress = false;
    // Fetch dispatches in program order and stalls when the target queue is full.
    while (next_fetch < n) {
      auto& queue = commands[int(hw::moduleOf(program[next_fetch]))];
      if (queue.size() >= cmd_depth) break;
      queue.push_back(next_fetch++);
      progress = true;
    }
    for (int m = 0; m < 3; ++m) {
      const TokenPorts ports = portsOf(Module(m));
      auto& queue = commands[m];
      while (!queue.empty()) {
        const size_t index = queue.front();
        const Instruction& insn = program[index];
        if (!blockedOn(insn, ports).empty()) break;
        if (cancel && cancel->load(std::memory_order_relaxed))
          throw Error("run cancelled before " + describe(program, index));
        if (insn.pop_prev) tokens[ports.pop_prev]--;
        if (insn.pop_next) tokens[ports.pop_next]--;
        datapath_->execute(insn, describe(program, index), stats, cancel);
        stats.instructions[int(insn.opcode)]++;
        if (insn.push_prev) tokens[ports.push_prev]++, stats.tokens_pushed[ports.push_prev]++;
        if (insn.push_next) tokens[ports.push_next]++, stats.tokens_pushed[ports.push_next]++;
        if (insn.opcode == hw::Opcode::Finish) finished = true;
        queue.pop_front();
        progress = true;
      }
    }
    const bool drained = commands[0].empty() && commands[1].empty() && commands[2].empty();
    if (finished && drained) break;
    if (progress) continue;

    std::ostringstream msg;
    msg << "deadlock: no module can make progress";
    for (int m = 0; m < 3; ++m) {
      msg << "; " << hw::moduleName(Module(m)) << " module ";
      if (commands[m].empty()) {
        msg << "is idle";
      } else {
        size_t index = commands[m].front();
        msg << "waits at " << describe(program, index) << " for " << blockedOn(program[index], portsOf(Module(m)));
      }
    }
    if (next_fetch < n)
      msg << "; fetch waits to dispatch " << describe(program, next_fetch) << " into its full command queue (depth "
          << cmd_depth << ")";
    throw Error(msg.str());
  }

  for (int q = 0; q < 4; ++q)
    if (tokens[q] != 0)
      throw Error("program finished with " + std::to_string(tokens[q]) + " unconsumed token(s) in the " +
                  tokenQueueName(TokenQueue(q)) + " queue (pushes and pops do not balance)");
  return stats;
}

}  // namespace vdla::sim
