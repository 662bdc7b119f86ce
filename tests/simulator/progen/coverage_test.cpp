// Over a few hundred seeds the generator exercises the whole ISA: every
// opcode and memory, every ALU op with an immediate and a tensor operand,
// tensor operands read repeatedly (also with writes to them in between),
// negative and clamped shift immediates, each padding side, padding-only and
// overlapping-row transfers, GEMM reset and accumulate, token-only NOPs, every
// token queue, and full command and token queues in the eager schedule.
// With gemm_requant: SETREQ with REQ and FREQ, and requantising GEMMs on
// either state, with reductions of several micro-ops and iterations whose
// micro-ops write different dst.
#include <gtest/gtest.h>

#include "requant_config.h"
#include "vdla/hw/config.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/sim/progen.h"
#include "vdla/sim/progen_reference.h"

namespace vdla::sim::progen {
namespace {

ProgramFeatures sumFeatures(const hw::HwConfig& cfg, int seeds, const ProgenOptions& opts = {}) {
  ProgramFeatures total;
  for (int s = 0; s < seeds; ++s) {
    const ProgramFeatures f = analyzeProgram(cfg, generateProgram(cfg, uint64_t(s), opts));
    for (int i = 0; i < hw::kNumOpcodes; ++i) total.opcodes[i] += f.opcodes[i];
    for (int i = 0; i < hw::kNumMemoryIds; ++i) total.loads_by_memory[i] += f.loads_by_memory[i];
    for (int i = 0; i < hw::kNumAluOps; ++i) {
      total.alu_imm[i] += f.alu_imm[i];
      total.alu_tensor[i] += f.alu_tensor[i];
    }
    total.alu_negative_imm += f.alu_negative_imm;
    total.alu_shift_clamped += f.alu_shift_clamped;
    total.pad_top += f.pad_top;
    total.pad_bottom += f.pad_bottom;
    total.pad_left += f.pad_left;
    total.pad_right += f.pad_right;
    total.padding_only_loads += f.padding_only_loads;
    total.overlapping_rows += f.overlapping_rows;
    total.gemm_reset += f.gemm_reset;
    total.gemm_accumulate += f.gemm_accumulate;
    total.dwgemm_strided += f.dwgemm_strided;
    total.dwgemm_short_runs += f.dwgemm_short_runs;
    total.dwgemm_upper_lanes += f.dwgemm_upper_lanes;
    total.alu_bias_clear += f.alu_bias_clear;
    total.setreq_req += f.setreq_req;
    total.setreq_freq += f.setreq_freq;
    total.gemm_requant_req += f.gemm_requant_req;
    total.gemm_requant_freq += f.gemm_requant_freq;
    total.gemm_requant_from_reset += f.gemm_requant_from_reset;
    total.dwgemm_requant += f.dwgemm_requant;
    total.stores_to_input += f.stores_to_input;
    total.reads_of_stored_input += f.reads_of_stored_input;
    total.gemm_requant_multi_uop += f.gemm_requant_multi_uop;
    total.gemm_requant_mixed_dst += f.gemm_requant_mixed_dst;
    total.empty_ops += f.empty_ops;
    total.alu_src_repeats += f.alu_src_repeats;
    total.alu_src_repeats_rewritten += f.alu_src_repeats_rewritten;
    total.fetch_stalls += f.fetch_stalls;
    for (int q = 0; q < 4; ++q) {
      total.pushes[q] += f.pushes[q];
      total.pops[q] += f.pops[q];
      total.push_stalls[q] += f.push_stalls[q];
      total.pop_waits[q] += f.pop_waits[q];
      total.max_tokens[q] = std::max(total.max_tokens[q], f.max_tokens[q]);
    }
  }
  return total;
}

ProgramFeatures sumFeatures(const std::string& config, int seeds, const ProgenOptions& opts = {}) {
  return sumFeatures(hw::loadConfig(config), seeds, opts);
}

TEST(ProgenCoverage, TinyProgramsCoverTheIsa) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  const ProgramFeatures f = sumFeatures("tiny", 300);
  ASSERT_EQ(cfg.depthwise_taps, 0u);
  ASSERT_FALSE(cfg.gemm_requant);
  for (int op = 0; op < hw::kNumOpcodes; ++op) {
    if (hw::Opcode(op) == hw::Opcode::DwGemm || hw::Opcode(op) == hw::Opcode::SetReq) continue;
    EXPECT_GT(f.opcodes[op], 0u) << hw::opcodeName(hw::Opcode(op));
  }
  // Not on a config without the extension.
  EXPECT_EQ(f.opcodes[int(hw::Opcode::DwGemm)], 0u);
  EXPECT_EQ(f.opcodes[int(hw::Opcode::SetReq)], 0u);
  EXPECT_EQ(f.gemm_requant_req + f.gemm_requant_freq, 0u);
  EXPECT_EQ(f.opcodes[int(hw::Opcode::Finish)], 300u);  // exactly one per program
  for (hw::Memory m : {hw::Memory::Uop, hw::Memory::Weight, hw::Memory::Input, hw::Memory::Acc, hw::Memory::Acc8})
    EXPECT_GT(f.loads_by_memory[int(m)], 0u) << hw::memoryName(m);
  ASSERT_FALSE(cfg.fused_requant);
  for (int op = 0; op < hw::numAluOps(cfg); ++op) {
    EXPECT_GT(f.alu_imm[op], 0u) << hw::aluOpName(hw::AluOp(op)) << " with an immediate";
    EXPECT_GT(f.alu_tensor[op], 0u) << hw::aluOpName(hw::AluOp(op)) << " with a tensor operand";
  }
  EXPECT_GT(f.alu_negative_imm, 0u);
  EXPECT_GT(f.alu_shift_clamped, 0u);
  EXPECT_GT(f.pad_top, 0u);
  EXPECT_GT(f.pad_bottom, 0u);
  EXPECT_GT(f.pad_left, 0u);
  EXPECT_GT(f.pad_right, 0u);
  EXPECT_GT(f.padding_only_loads, 0u);
  EXPECT_GT(f.overlapping_rows, 0u);
  EXPECT_GT(f.gemm_reset, 0u);
  EXPECT_GT(f.gemm_accumulate, 0u);
  EXPECT_GT(f.empty_ops, 0u);
  // Tensor-operand ALU micro-ops reading the entry the previous one read, and
  // with that entry written in between: the operand register's cases.
  EXPECT_GT(f.alu_src_repeats, 1000u);
  EXPECT_GT(f.alu_src_repeats_rewritten, 80u);
  for (int q = 0; q < 4; ++q) {
    EXPECT_GT(f.pushes[q], 0u) << "queue " << q;
    EXPECT_EQ(f.pushes[q], f.pops[q]) << "queue " << q;
    EXPECT_GT(f.pop_waits[q], 0u) << "queue " << q;
    EXPECT_EQ(f.max_tokens[q], cfg.token_queue_depth) << "queue " << q << " never filled";
  }
  // Back-pressure in the eager schedule: fetch waiting on a full command queue
  // and a producer waiting on a full token queue.
  EXPECT_GT(f.fetch_stalls, 0u);
  EXPECT_GT(f.push_stalls[0] + f.push_stalls[1] + f.push_stalls[2] + f.push_stalls[3], 0u);
}

// On a config with the depthwise extension the GEMM kind includes DWGEMM, with
// strides above 1 and inner runs too short to complete an output.
TEST(ProgenCoverage, PynqProgramsCoverDwgemm) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  ASSERT_GT(cfg.depthwise_taps, 0u);
  const ProgramFeatures f = sumFeatures("pynq", 100);
  EXPECT_GT(f.opcodes[int(hw::Opcode::DwGemm)], 50u);
  EXPECT_GT(f.dwgemm_strided, 10u);
  EXPECT_GT(f.dwgemm_short_runs, 0u);
  EXPECT_EQ(f.dwgemm_upper_lanes, 0u);  // square: lane_block has no field
}

// ultra96 (1x32x16): DWGEMMs take both 16-channel halves of an input entry.
TEST(ProgenCoverage, Ultra96ProgramsCoverBothLaneBlocks) {
  const hw::HwConfig cfg = hw::loadConfig("ultra96");
  ASSERT_EQ(cfg.depthwiseLaneBlocks(), 2u);
  const ProgramFeatures f = sumFeatures("ultra96", 60);
  EXPECT_GT(f.opcodes[int(hw::Opcode::DwGemm)], 30u);
  EXPECT_GT(f.dwgemm_upper_lanes, 10u);
  EXPECT_LT(f.dwgemm_upper_lanes, f.opcodes[int(hw::Opcode::DwGemm)]);
}

// inp_writeback on pynq: STORE INPs, whose entries GEMMs and DWGEMMs then
// read; without the extension (tiny) none.
TEST(ProgenCoverage, PynqProgramsCoverStoreInp) {
  ASSERT_TRUE(hw::loadConfig("pynq").inp_writeback);
  const ProgramFeatures f = sumFeatures("pynq", 100);
  EXPECT_GT(f.stores_to_input, 50u);
  EXPECT_GT(f.reads_of_stored_input, 20u);
  EXPECT_GT(f.loads_by_memory[int(hw::Memory::Input)], f.stores_to_input / 4);  // loads still write INP too
  ASSERT_FALSE(hw::loadConfig("tiny").inp_writeback);
  EXPECT_EQ(sumFeatures("tiny", 50).stores_to_input, 0u);
}

// With alu_bias_clear, ALUs carry the flag with a tensor operand (the bias read
// from ACC[src+1]); without it (tiny) never.
TEST(ProgenCoverage, PynqProgramsCoverBiasClear) {
  ASSERT_TRUE(hw::loadConfig("pynq").alu_bias_clear);
  EXPECT_GT(sumFeatures("pynq", 100).alu_bias_clear, 20u);
  ASSERT_FALSE(hw::loadConfig("tiny").alu_bias_clear);
  EXPECT_EQ(sumFeatures("tiny", 50).alu_bias_clear, 0u);
}

// gemm_requant on pynq (REQ only): SETREQs, requantising GEMMs whose
// iterations run several micro-ops, some of them into different dst, and
// the other GEMM forms still; none before a SETREQ unless the options allow
// the reset state.
TEST(ProgenCoverage, GemmRequantProgramsCoverSetreqAndRequantisingGemms) {
  const hw::HwConfig cfg = progentest::withGemmRequant("pynq");
  ASSERT_TRUE(hw::IsaLayout(cfg).hasOpcode(hw::Opcode::SetReq));
  ASSERT_FALSE(cfg.float_requant);
  const ProgramFeatures f = sumFeatures(cfg, 100);
  EXPECT_EQ(f.opcodes[int(hw::Opcode::SetReq)], f.setreq_req + f.setreq_freq);
  EXPECT_GT(f.setreq_req, 50u);
  EXPECT_EQ(f.setreq_freq, 0u);  // pynq has no FREQ
  EXPECT_GT(f.gemm_requant_req, 50u);
  EXPECT_EQ(f.gemm_requant_freq, 0u);
  EXPECT_GT(f.gemm_requant_multi_uop, 30u);
  EXPECT_GT(f.gemm_requant_mixed_dst, 10u);
  EXPECT_LT(f.gemm_requant_mixed_dst, f.gemm_requant_multi_uop);  // and reductions into one dst
  EXPECT_EQ(f.gemm_requant_from_reset, 0u);
  EXPECT_GT(f.gemm_reset, 20u);
  EXPECT_GT(f.gemm_accumulate, f.gemm_requant_req);  // plain accumulating GEMMs as well
  EXPECT_GT(f.opcodes[int(hw::Opcode::DwGemm)], 30u);
  EXPECT_GT(f.dwgemm_requant, 10u);  // DWGEMMs that requantise
  EXPECT_LT(f.dwgemm_requant, f.opcodes[int(hw::Opcode::DwGemm)]);

  ProgenOptions from_reset;
  from_reset.requant_from_reset = true;
  const ProgramFeatures r = sumFeatures(cfg, 100, from_reset);
  EXPECT_GT(r.gemm_requant_from_reset, 10u);
  EXPECT_GT(r.gemm_requant_req, r.gemm_requant_from_reset);  // and after SETREQs
}

// zcu104 has float_requant: SETREQ picks FREQ as well, and requantising GEMMs
// run on both states.
TEST(ProgenCoverage, GemmRequantProgramsCoverFreq) {
  const hw::HwConfig cfg = progentest::withGemmRequant("zcu104");
  ASSERT_TRUE(cfg.float_requant);
  const ProgramFeatures f = sumFeatures(cfg, 100);
  EXPECT_GT(f.setreq_req, 30u);
  EXPECT_GT(f.setreq_freq, 30u);
  EXPECT_GT(f.gemm_requant_req, 30u);
  EXPECT_GT(f.gemm_requant_freq, 30u);
  EXPECT_GT(f.gemm_requant_mixed_dst, 10u);
}

TEST(ProgenCoverage, OptionsRestrictTheProgram) {
  ProgenOptions o;
  o.ops = kLoadUop | kLoadAcc | kAlu | kStore;
  o.alu_ops = 1u << int(hw::AluOp::Max);
  o.padding = false;
  const ProgramFeatures f = sumFeatures("tiny", 50, o);
  EXPECT_GT(f.alu_imm[int(hw::AluOp::Max)] + f.alu_tensor[int(hw::AluOp::Max)], 0u);
  for (int op = 0; op < hw::kNumAluOps; ++op) {
    if (op != int(hw::AluOp::Max)) {
      EXPECT_EQ(f.alu_imm[op] + f.alu_tensor[op], 0u) << hw::aluOpName(hw::AluOp(op));
    }
  }
  EXPECT_EQ(f.gemm_reset + f.gemm_accumulate, 0u);
  EXPECT_EQ(f.loads_by_memory[int(hw::Memory::Input)] + f.loads_by_memory[int(hw::Memory::Weight)] +
                f.loads_by_memory[int(hw::Memory::Acc8)],
            0u);
  EXPECT_EQ(f.pad_top + f.pad_bottom + f.pad_left + f.pad_right, 0u);
  EXPECT_GT(f.opcodes[int(hw::Opcode::Store)], 0u);
}

TEST(ProgenCoverage, QueueFillingCanBeTurnedOff) {
  ProgenOptions o;
  o.queue_filling = false;
  const ProgramFeatures calm = sumFeatures("tiny", 100, o), busy = sumFeatures("tiny", 100);
  uint64_t calm_stalls = 0, busy_stalls = 0;
  for (int q = 0; q < 4; ++q) calm_stalls += calm.push_stalls[q], busy_stalls += busy.push_stalls[q];
  EXPECT_GT(busy_stalls, calm_stalls);
}

}  // namespace
}  // namespace vdla::sim::progen
