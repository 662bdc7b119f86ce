#pragma once
// The on-chip memories of VDLA and the execution of one instruction on them.
// Private to the simulator library.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::sim {

class Datapath {
 public:
  Datapath(const hw::HwConfig& cfg, Dram& dram);

  // Executes one LOAD, STORE, GEMM or ALU. `where` names the instruction in
  // errors ("instruction 12 (GEMM)"). A long GEMM or ALU stops with an error
  // when `cancel` becomes true.
  void execute(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats,
               const std::atomic<bool>* cancel);

 private:
  void load(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats);
  void store(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats);
  void gemm(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats);
  void alu(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats);
  void aluBiasClear(const hw::Instruction& insn, uint32_t dst, uint32_t src);
  void dwgemm(const hw::Instruction& insn, const std::string& where, ExecutionStats& stats);
  void setReq(const hw::Instruction& insn, const std::string& where);
  void checkCancel(const std::string& where) const;
  // Checks uop_begin/uop_end and that the largest dst/src/wgt index that the
  // loop nest reaches stays inside its memory.
  void checkLoopNest(const hw::Instruction& insn, const std::string& where) const;
  const uint8_t* dramRange(uint64_t entry_index, uint64_t entries, hw::Memory m, const std::string& where);
  void narrowToOutput(uint32_t acc_index);
  // OUT[acc_index]: the low bytes of ACC, or with requant (a requantising
  // GEMM or DWGEMM) those of the requantisation state's op of ACC.
  void writeOutput(uint32_t acc_index, bool requant);

  hw::HwConfig cfg_;
  hw::IsaLayout layout_;
  Dram& dram_;
  uint32_t inp_entry_, wgt_entry_, acc_entry_, out_entry_;  // elements per entry
  std::vector<hw::Uop> uop_;
  std::vector<int8_t> inp_, wgt_, out_;
  std::vector<int32_t> acc_;
  // The requantisation state of SETREQ (extension gemm_requant); after reset
  // REQ with a zero operand, bias and immediate, as the hardware's registers.
  hw::AluOp req_op_ = hw::AluOp::Req;
  int32_t req_imm_ = 0;
  std::vector<int32_t> req_operand_;
  std::vector<int32_t> req_bias_;
  const std::atomic<bool>* cancel_ = nullptr;  // of the instruction being executed
};

}  // namespace vdla::sim
