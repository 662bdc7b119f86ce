// What a generated program exercises: static counts over its instructions,
// the tensor-operand reuse of the ALU (replaying the micro-op loops), and a
// model of the eager in-order schedule that counts full-queue stalls.
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
      return (uint64_t(i.y_pad_top) + i.y_size + i.y_pad_bottom) *
                 (uint64_t(i.x_pad_left) + i.x_size + i.x_pad_right) ==
             0;
    case Opcode::Store: return uint64_t(i.y_size) * i.x_size == 0;
    case Opcode::Gemm:
    case Opcode::DwGemm:
    case Opcode::Alu: return i.iter_out == 0 || i.iter_in == 0 || i.uop_begin == i.uop_end;
    case Opcode::SetReq:
    case Opcode::Finish: return false;
  }
  return false;
}

void countStatic(const Instruction& i, ProgramFeatures& f) {
  f.opcodes[int(i.opcode)]++;
  const int m = int(hw::moduleOf(i));
  for (int q = 0; q < 4; ++q) {
    if (queueEnds(q).producer == m && pushes(i, q)) f.pushes[q]++;
    if (queueEnds(q).consumer == m && pops(i, q)) f.pops[q]++;
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
  } else if (i.opcode == Opcode::SetReq) {
    (i.alu_op == hw::AluOp::FReq ? f.setreq_freq : f.setreq_req)++;
  } else if (i.opcode == Opcode::Gemm) {
    (i.reset ? f.gemm_reset : f.gemm_accumulate)++;
  } else if (i.opcode == Opcode::DwGemm) {
    f.dwgemm_strided += i.stride > 1;
    f.dwgemm_short_runs += i.iter_in < i.taps;
    f.dwgemm_upper_lanes += i.lane_block > 0;
  } else if (i.opcode == Opcode::Alu) {
    (i.use_imm ? f.alu_imm : f.alu_tensor)[int(i.alu_op)]++;
    if (i.use_imm && i.imm < 0) f.alu_negative_imm++;
    f.alu_bias_clear += i.bias_clear && !i.use_imm;
    if (i.use_imm && (i.alu_op == hw::AluOp::Shr || i.alu_op == hw::AluOp::Rshr) && (i.imm < -31 || i.imm > 31))
      f.alu_shift_clamped++;
  }
}

// Whether instruction k loads micro-ops from the program's table, and what
// it leaves in the UOP memory (replayed in program order by the analyses).
bool loadsUops(const RandomProgram& p, size_t k) {
  const Instruction& i = p.instructions[k];
  return i.opcode == Opcode::Load && i.memory == hw::Memory::Uop && p.buffer_of[k] >= 0;
}
void replayUopLoad(const RandomProgram& p, size_t k, std::vector<hw::Uop>& uop_sram) {
  const Instruction& i = p.instructions[k];
  for (uint64_t r = 0; r < i.y_size; ++r)
    for (uint64_t c = 0; c < i.x_size; ++c) {
      const uint64_t from = i.dram_base + r * i.x_stride + c;
      if (from < p.uops.size()) uop_sram[i.sram_base + r * i.x_size + c] = p.uops[from];
    }
}

// Replays the compute stream's UOP loads and loop nests in program order and
// counts tensor-operand ALU micro-ops that read the same ACC entry as the
// previous one, and those whose entry was written since that read.
void countOperandReuse(const hw::HwConfig& cfg, const RandomProgram& p, ProgramFeatures& f) {
  std::vector<hw::Uop> uop_sram(cfg.depth(hw::Memory::Uop));
  int64_t last_src = -1;  // the entry the previous tensor-operand micro-op read
  bool written = false;   // ... written since
  auto write = [&](uint64_t entry) {
    if (int64_t(entry) == last_src) written = true;
  };
  for (size_t k = 0; k < p.instructions.size(); ++k) {
    const Instruction& i = p.instructions[k];
    if (loadsUops(p, k)) {
      replayUopLoad(p, k, uop_sram);
    } else if (i.opcode == Opcode::Load && (i.memory == hw::Memory::Acc || i.memory == hw::Memory::Acc8)) {
      const uint64_t n =
          (uint64_t(i.y_pad_top) + i.y_size + i.y_pad_bottom) * (uint64_t(i.x_pad_left) + i.x_size + i.x_pad_right);
      for (uint64_t e = 0; e < n; ++e) write(i.sram_base + e);
    } else if (i.opcode == Opcode::DwGemm) {
      for (uint32_t u = i.uop_begin; u < i.uop_end; ++u)
        for (uint32_t o = 0; o < i.iter_out; ++o)
          for (uint64_t j = 0; j < hw::dwgemmWritesPerRun(i); ++j)
            write(uint64_t(uop_sram[u].dst) + uint64_t(o) * i.dst_factor_out + j * i.dst_factor_in);
    } else if (i.opcode == Opcode::Gemm || i.opcode == Opcode::Alu) {
      const bool tensor = i.opcode == Opcode::Alu && !i.use_imm;
      for (uint32_t o = 0; o < i.iter_out; ++o)
        for (uint32_t n = 0; n < i.iter_in; ++n)
          for (uint32_t u = i.uop_begin; u < i.uop_end; ++u) {
            const hw::Uop& uop = uop_sram[u];
            if (tensor) {
              const int64_t src = int64_t(uop.src) + int64_t(o) * i.src_factor_out + int64_t(n) * i.src_factor_in;
              if (src == last_src) {
                f.alu_src_repeats++;
                if (written) f.alu_src_repeats_rewritten++;
              }
              last_src = src;
              written = false;
            }
            write(uint64_t(uop.dst) + uint64_t(o) * i.dst_factor_out + uint64_t(n) * i.dst_factor_in);
          }
    }
  }
}

// Requantising GEMMs: the state's op (followed through the SETREQs in
// program order, REQ from reset) and the dst of each iteration's micro-ops;
// requantising DWGEMMs.
void countRequant(const hw::HwConfig& cfg, const RandomProgram& p, ProgramFeatures& f) {
  std::vector<hw::Uop> uop_sram(cfg.depth(hw::Memory::Uop));
  hw::AluOp state = hw::AluOp::Req;
  bool set = false;
  for (size_t k = 0; k < p.instructions.size(); ++k) {
    const Instruction& i = p.instructions[k];
    if (loadsUops(p, k)) {
      replayUopLoad(p, k, uop_sram);
    } else if (i.opcode == Opcode::SetReq) {
      state = i.alu_op;
      set = true;
    } else if (i.opcode == Opcode::DwGemm && i.requant && !isEmpty(i)) {
      f.dwgemm_requant++;
    } else if (i.opcode == Opcode::Gemm && i.requant && !isEmpty(i)) {
      (state == hw::AluOp::FReq ? f.gemm_requant_freq : f.gemm_requant_req)++;
      f.gemm_requant_from_reset += !set;
      f.gemm_requant_multi_uop += i.uop_end - i.uop_begin > 1;
      // Within an iteration the micro-ops' dst differ exactly where their
      // uop.dst do (the loop offsets are the same for all of them).
      bool mixed = false;
      for (uint32_t u = i.uop_begin + 1; u < i.uop_end && !mixed; ++u)
        mixed = uop_sram[u].dst != uop_sram[i.uop_begin].dst;
      f.gemm_requant_mixed_dst += mixed;
    }
  }
}

// STORE INP (inp_writeback): the non-empty ones, and the GEMMs and DWGEMMs
// that read an INP entry whose last writer in program order was one (the
// data a STORE INP moved, used on chip).
void countInputWriteback(const hw::HwConfig& cfg, const RandomProgram& p, ProgramFeatures& f) {
  std::vector<hw::Uop> uop_sram(cfg.depth(hw::Memory::Uop));
  std::vector<bool> from_store(cfg.depth(hw::Memory::Input), false);
  for (size_t k = 0; k < p.instructions.size(); ++k) {
    const Instruction& i = p.instructions[k];
    if (loadsUops(p, k)) {
      replayUopLoad(p, k, uop_sram);
    } else if (i.opcode == Opcode::Load && i.memory == hw::Memory::Input) {
      const uint64_t n =
          (uint64_t(i.y_pad_top) + i.y_size + i.y_pad_bottom) * (uint64_t(i.x_pad_left) + i.x_size + i.x_pad_right);
      for (uint64_t e = 0; e < n; ++e) from_store[i.sram_base + e] = false;
    } else if (i.opcode == Opcode::Store && i.memory == hw::Memory::Input && !isEmpty(i)) {
      f.stores_to_input++;
      for (uint64_t r = 0; r < i.y_size; ++r)
        for (uint64_t c = 0; c < i.x_size; ++c) from_store[i.dram_base + r * i.x_stride + c] = true;
    } else if ((i.opcode == Opcode::Gemm && !i.reset) || i.opcode == Opcode::DwGemm) {
      bool reads = false;
      for (uint32_t u = i.uop_begin; u < i.uop_end && !reads; ++u)
        for (uint32_t o = 0; o < i.iter_out && !reads; ++o)
          for (uint32_t n = 0; n < i.iter_in && !reads; ++n) {
            const uint64_t src =
                uint64_t(uop_sram[u].src) + uint64_t(o) * i.src_factor_out + uint64_t(n) * i.src_factor_in;
            reads = src < from_store.size() && from_store[src];
          }
      f.reads_of_stored_input += reads;
    }
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
          if (queueEnds(q).consumer == m && pops(insn, q) && tokens[q] == 0) {
            ready = false;
            if (!pop_waited[idx * 4 + q]) f.pop_waits[q]++, pop_waited[idx * 4 + q] = true;
          }
          if (queueEnds(q).producer == m && pushes(insn, q) && tokens[q] >= cfg.token_queue_depth) {
            ready = false;
            if (!push_waited[idx * 4 + q]) f.push_stalls[q]++, push_waited[idx * 4 + q] = true;
          }
        }
        if (!ready) break;
        for (int q = 0; q < 4; ++q)
          if (queueEnds(q).consumer == m && pops(insn, q)) tokens[q]--;
        for (int q = 0; q < 4; ++q)
          if (queueEnds(q).producer == m && pushes(insn, q)) {
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
  countOperandReuse(cfg, program, f);
  countRequant(cfg, program, f);
  countInputWriteback(cfg, program, f);
  modelSchedule(cfg, program.instructions, f);
  return f;
}

}  // namespace vdla::sim::progen
