#pragma once
// Checks of generated programs that do not use fsim's code:
//  * referenceRun: a plain sequential interpreter written from docs/isa.md,
//    one element at a time, so that fsim's optimised datapath is compared with
//    an independent model on random programs. A valid program's result does
//    not depend on scheduling, so it runs the instructions in program order;
//    it checks the generator's guarantees on the way (bounds, reads of entries
//    the program wrote, and that in program order every pop finds a token and
//    every push finds room, with none left at the end).
//  * analyzeProgram: what a program exercises, for coverage tests, including a
//    model of the eager in-order schedule (fetch, then load, compute, store,
//    each as far as it can, the policy fsim uses) that counts how often a
//    command queue or a token queue was full.
#include <cstdint>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/sim/progen.h"

namespace vdla::sim::progen {

// Final contents of every buffer (in RandomProgram::buffers order). Throws
// vdla::Error naming the instruction if the program breaks a guarantee.
std::vector<std::vector<uint8_t>> referenceRun(const hw::HwConfig& cfg, const RandomProgram& program);

struct ProgramFeatures {
  uint64_t opcodes[hw::kNumOpcodes] = {};
  uint64_t loads_by_memory[hw::kNumMemoryIds] = {};                        // non-empty LOADs
  uint64_t alu_imm[hw::kNumAluOps] = {}, alu_tensor[hw::kNumAluOps] = {};  // non-empty ALUs
  uint64_t alu_negative_imm = 0, alu_shift_clamped = 0;                    // imm < 0; SHR/RSHR imm outside [-31, 31]
  uint64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;       // LOADs padding that side
  uint64_t padding_only_loads = 0;               // y or x zero but padded: zeros without a DRAM read
  uint64_t overlapping_rows = 0;                 // LOAD/STORE with y > 1 and stride < x
  uint64_t gemm_reset = 0, gemm_accumulate = 0;  // non-empty GEMMs
  uint64_t dwgemm_strided = 0;                   // non-empty DWGEMMs with stride > 1
  uint64_t dwgemm_short_runs = 0;                // ... whose inner runs are shorter than the taps (no output)
  uint64_t dwgemm_upper_lanes = 0;               // ... with lane_block > 0 (block_in > block_out)
  uint64_t alu_bias_clear = 0;                   // non-empty ALUs with bias_clear and a tensor operand
  // gemm_requant: SETREQs by op, and non-empty requantising GEMMs by the op
  // of the state they use (the last SETREQ's, REQ from reset), of which
  // those before any SETREQ of the program (the reset state), those with
  // iterations of several micro-ops, and those with an iteration whose
  // micro-ops write different dst.
  uint64_t setreq_req = 0, setreq_freq = 0;
  uint64_t gemm_requant_req = 0, gemm_requant_freq = 0;
  uint64_t gemm_requant_from_reset = 0, gemm_requant_multi_uop = 0, gemm_requant_mixed_dst = 0;
  uint64_t dwgemm_requant = 0;  // requantising DWGEMMs (extension gemm_requant)
  // inp_writeback: non-empty STORE INPs, and GEMMs/DWGEMMs that read an INP
  // entry a STORE INP wrote last.
  uint64_t stores_to_input = 0, reads_of_stored_input = 0;
  uint64_t empty_ops = 0;  // zero-size transfers and loops (token-only NOPs)
  // Tensor-operand ALU micro-ops (in program order, across instructions) that
  // read the same ACC entry as the tensor-operand micro-op before them: the
  // case a hardware operand register serves without a second ACC read.
  uint64_t alu_src_repeats = 0;
  // ... of which the entry was written in between (by that earlier micro-op,
  // or by a GEMM, ALU, LOAD ACC or LOAD ACC8 between the two), so that a
  // stale operand register would give a wrong result.
  uint64_t alu_src_repeats_rewritten = 0;
  uint64_t pushes[4] = {}, pops[4] = {};
  // From the schedule model:
  uint64_t fetch_stalls = 0;     // instructions that waited to enter a full command queue
  uint64_t push_stalls[4] = {};  // instructions that waited for room in a full token queue
  uint64_t pop_waits[4] = {};    // instructions that waited for a token
  uint32_t max_tokens[4] = {};   // the most tokens a queue held
};

// Throws vdla::Error if the schedule model deadlocks or leaves tokens.
ProgramFeatures analyzeProgram(const hw::HwConfig& cfg, const RandomProgram& program);

}  // namespace vdla::sim::progen
