// What a generated program exercises: static counts over its instructions and
// a model of the eager in-order schedule that counts full-queue stalls.
#include <deque>
#include <vector>

#include "tokens.h"
#include "vdla/hw/error.h"
#include "vdla/sim/progen_reference.h"

namespace vdla::sim::progen {
namespace {

using hw::Instruction;
using hw::Opcode;

bool isEmpty(const Instruction& i) {
  switch (i.opcode) {
    case Opcode::Load:
      return (uint64_t(i.y_pad_top) + i.y_size + i.y_pad_bottom) * (uint64_t(i.x_pad_left) + i.x_size + i.x_pad_right) == 0;
    case Opcode::Store: return uint64_t(i.y_size) * i.x_size == 0;
    case Opcode::Gemm:
    case Opcode::Alu: return i.iter_out == 0 || i.iter_in == 0 || i.uop_begin == i.uop_end;
    case Opcode::Finish: return false;
  }
  return false;
}

void countStatic(const Instruction& i, ProgramFeatures& f) {
  f.opcodes[int(i.opcode)]++;
  const int m = int(hw::moduleOf(i));
  for (int q = 0; q < 4; ++q) {
    if (kQueueEnds[q].producer == m && pushes(i, q)) f.pushes[q]++;
    if (kQueueEnds[q].consumer == m && pops(i, q)) f.pops[q]++;
  }
  if (isEmpty(i)) {
    f.empty_ops++;
    return;
  }
  if ((i.opcode == Opcode::Load || i.opcode == Opcode::Store) && i.y_size > 1 && i.x_stride < i.x_size)
    f.overlapping_rows++;
  if (i.opcode == Opcode::Load) {
    f.loads_by_memory[int(i.memory)]++;
    f.pad_top += i.y_pad_top > 0;
    f.pad_bottom += i.y_pad_bottom > 0;
    f.pad_left += i.x_pad_left > 0;
    f.pad_right += i.x_pad_right > 0;
    f.padding_only_loads += (i.y_size == 0 || i.x_size == 0);
  } else if (i.opcode == Opcode::Gemm) {
    (i.reset ? f.gemm_reset : f.gemm_accumulate)++;
  } else if (i.opcode == Opcode::Alu) {
    (i.use_imm ? f.alu_imm : f.alu_tensor)[int(i.alu_op)]++;
    if (i.use_imm && i.imm < 0) f.alu_negative_imm++;
    if (i.use_imm && (i.alu_op == hw::AluOp::Shr || i.alu_op == hw::AluOp::Rshr) && (i.imm < -31 || i.imm > 31))
      f.alu_shift_clamped++;
  }
}

// The eager schedule: each round, fetch dispatches in program order until a
// command queue is full, then load, compute and store each run their queue
// head for as long as its tokens and room are there.
void modelSchedule(const hw::HwConfig& cfg, const std::vector<Instruction>& prog, ProgramFeatures& f) {
  std::deque<size_t> queue[3];
  uint32_t tokens[4] = {0, 0, 0, 0};
  std::vector<bool> fetch_waited(prog.size(), false), push_waited(prog.size() * 4, false),
      pop_waited(prog.size() * 4, false);
  size_t next = 0;
  bool finished = false;
  while (true) {
    bool progress = false;
    while (next < prog.size()) {
      auto& qu = queue[int(hw::moduleOf(prog[next]))];
      if (qu.size() >= cfg.command_queue_depth) {
        if (!fetch_waited[next]) f.fetch_stalls++, fetch_waited[next] = true;
        break;
      }
      qu.push_back(next++);
      progress = true;
    }
    for (int m = 0; m < 3; ++m) {
      while (!queue[m].empty()) {
        const size_t idx = queue[m].front();
        const Instruction& insn = prog[idx];
        bool ready = true;
        for (int q = 0; q < 4; ++q) {
          if (kQueueEnds[q].consumer == m && pops(insn, q) && tokens[q] == 0) {
            ready = false;
            if (!pop_waited[idx * 4 + q]) f.pop_waits[q]++, pop_waited[idx * 4 + q] = true;
          }
          if (kQueueEnds[q].producer == m && pushes(insn, q) && tokens[q] >= cfg.token_queue_depth) {
            ready = false;
            if (!push_waited[idx * 4 + q]) f.push_stalls[q]++, push_waited[idx * 4 + q] = true;
          }
        }
        if (!ready) break;
        for (int q = 0; q < 4; ++q)
          if (kQueueEnds[q].consumer == m && pops(insn, q)) tokens[q]--;
        for (int q = 0; q < 4; ++q)
          if (kQueueEnds[q].producer == m && pushes(insn, q)) {
            tokens[q]++;
            if (tokens[q] > f.max_tokens[q]) f.max_tokens[q] = tokens[q];
          }
        if (insn.opcode == Opcode::Finish) finished = true;
        queue[m].pop_front();
        progress = true;
      }
    }
    if (finished && queue[0].empty() && queue[1].empty() && queue[2].empty()) break;
    if (!progress) throw Error("progen schedule model: deadlock at fetch position " + std::to_string(next));
  }
  for (int q = 0; q < 4; ++q)
    if (tokens[q]) throw Error("progen schedule model: tokens left in queue " + std::to_string(q));
}

}  // namespace

ProgramFeatures analyzeProgram(const hw::HwConfig& cfg, const RandomProgram& program) {
  ProgramFeatures f;
  for (const Instruction& i : program.instructions) countStatic(i, f);
  modelSchedule(cfg, program.instructions, f);
  return f;
}

}  // namespace vdla::sim::progen
