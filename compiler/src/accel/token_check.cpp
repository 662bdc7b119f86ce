#include "vdla/compiler/accel/token_check.h"

#include <deque>
#include <stdexcept>

#include "vdla/hw/token_ports.h"

namespace vdla::accel {

namespace {

const char* queueName(int q) { return hw::tokenQueueName(hw::TokenQueue(q)); }

struct Needs {
  int pop[2] = {-1, -1};
  int push[2] = {-1, -1};
};

// The queues an instruction pops and pushes (vdla/hw/token_ports.h); a flag
// naming a neighbour the module does not have names no queue.
Needs needsOf(const hw::Instruction& insn) {
  const hw::TokenPorts p = hw::tokenPorts(hw::moduleOf(insn));
  Needs n;
  if (insn.pop_prev) n.pop[0] = p.pop_prev;
  if (insn.pop_next) n.pop[1] = p.pop_next;
  if (insn.push_prev) n.push[0] = p.push_prev;
  if (insn.push_next) n.push[1] = p.push_next;
  return n;
}

}  // namespace

TokenCheckResult checkTokens(const std::vector<hw::Instruction>& program, const hw::HwConfig& cfg,
                             const std::string& name) {
  const std::string where = "program '" + name + "'";
  TokenCheckResult result;
  if (program.empty() || program.back().opcode != hw::Opcode::Finish)
    throw std::runtime_error(where + ": does not end with FINISH");
  std::deque<size_t> cmd[3];
  uint32_t tokens[4] = {};
  size_t fetched = 0, retired = 0;
  auto why = [&](size_t idx) -> std::string {
    const Needs n = needsOf(program[idx]);
    for (int q : n.pop)
      if (q >= 0 && tokens[q] == 0) return "a token from " + std::string(queueName(q));
    for (int q : n.push)
      if (q >= 0 && tokens[q] >= cfg.token_queue_depth) return "room in " + std::string(queueName(q));
    return "";
  };
  while (retired < program.size()) {
    bool progress = false;
    while (fetched < program.size()) {
      const int m = static_cast<int>(hw::moduleOf(program[fetched]));
      if (cmd[m].size() >= cfg.command_queue_depth) break;
      cmd[m].push_back(fetched++);
      progress = true;
    }
    for (int m = 0; m < 3; ++m)
      while (!cmd[m].empty() && why(cmd[m].front()).empty()) {
        const Needs n = needsOf(program[cmd[m].front()]);
        for (int q : n.pop)
          if (q >= 0) --tokens[q];
        for (int q : n.push)
          if (q >= 0) {
            ++tokens[q];
            ++result.tokens[q];
            result.max_occupancy[q] = std::max(result.max_occupancy[q], tokens[q]);
          }
        cmd[m].pop_front();
        ++retired;
        progress = true;
      }
    if (!progress) {
      std::string msg = where + ": deadlock:";
      const char* modules[] = {"load", "compute", "store"};
      for (int m = 0; m < 3; ++m)
        if (!cmd[m].empty())
          msg += std::string(" ") + modules[m] + " waits at instruction " + std::to_string(cmd[m].front()) + " for " +
                 why(cmd[m].front()) + ";";
      if (fetched < program.size())
        msg += " fetch is blocked at instruction " + std::to_string(fetched) + " on a full command queue;";
      msg.pop_back();
      throw std::runtime_error(msg);
    }
  }
  for (int q = 0; q < 4; ++q)
    if (tokens[q] != 0)
      throw std::runtime_error(where + ": " + std::to_string(tokens[q]) + " token(s) left in " + queueName(q) +
                               " at the end (every push needs a matching pop)");
  return result;
}

}  // namespace vdla::accel
