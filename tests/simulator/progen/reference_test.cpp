// fsim against the independent sequential reference interpreter on random
// programs, bit for bit on every buffer; and the reference's own checks of the
// generator's guarantees fire on broken programs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "requant_config.h"
#include "vdla/hw/assembly.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/config.h"
#include "vdla/hw/error.h"
#include "vdla/sim/progen.h"
#include "vdla/sim/progen_fsim.h"
#include "vdla/sim/progen_reference.h"

namespace vdla::sim::progen {
namespace {

using ::testing::HasSubstr;

// The first difference as text, "" if none.
std::string firstDifference(const RandomProgram& p, const std::vector<std::vector<uint8_t>>& fsim,
                            const std::vector<std::vector<uint8_t>>& ref) {
  for (size_t b = 0; b < p.buffers.size(); ++b)
    for (size_t k = 0; k < p.buffers[b].init.size(); ++k)
      if (fsim[b][k] != ref[b][k])
        return "buffer '" + p.buffers[b].name + "' byte " + std::to_string(k) + ": fsim " + std::to_string(fsim[b][k]) +
               ", reference " + std::to_string(ref[b][k]);
  return "";
}

void expectFsimMatchesReference(const hw::HwConfig& cfg, uint64_t first_seed, int count,
                                const ProgenOptions& opts = {}) {
  Dram dram;
  FunctionalSimulator fsim(cfg, dram);
  uint64_t stored_bytes = 0;
  for (int k = 0; k < count; ++k) {
    const RandomProgram p = generateProgram(cfg, first_seed + uint64_t(k), opts);
    const FsimRun run = runOnFsim(fsim, dram, p);
    const auto ref = referenceRun(cfg, p);
    ASSERT_EQ(firstDifference(p, run.buffers, ref), "") << "seed " << p.seed << "\n" << describeProgram(p);
    stored_bytes += run.stats.dram_bytes_written;
  }
  EXPECT_GT(stored_bytes, 0u);  // the comparison covered real results
}

void expectFsimMatchesReference(const std::string& config, uint64_t first_seed, int count,
                                const ProgenOptions& opts = {}) {
  expectFsimMatchesReference(hw::loadConfig(config), first_seed, count, opts);
}

TEST(ProgenReference, FsimMatchesReferenceOnTiny) { expectFsimMatchesReference("tiny", 10000, 250); }

TEST(ProgenReference, FsimMatchesReferenceOnPynq) { expectFsimMatchesReference("pynq", 10000, 25); }

TEST(ProgenReference, FsimMatchesReferenceOnLargerTilesWithoutSelfOverlap) {
  ProgenOptions o;
  o.size_scale = 2.5;
  o.alu_self_overlap = false;
  expectFsimMatchesReference("tiny", 20000, 30, o);
}

// gemm_requant (SETREQ, GEMM requant): pynq and ultra96 with REQ, zcu104
// with REQ and FREQ, on one fsim each (the requantisation state carries over
// between programs; every program sets its own before using it).
TEST(ProgenReference, FsimMatchesReferenceWithGemmRequantOnPynq) {
  expectFsimMatchesReference(progentest::withGemmRequant("pynq"), 30000, 150);
}
TEST(ProgenReference, FsimMatchesReferenceWithGemmRequantOnUltra96) {
  expectFsimMatchesReference(progentest::withGemmRequant("ultra96"), 31000, 60);
}
TEST(ProgenReference, FsimMatchesReferenceWithGemmRequantAndFreqOnZcu104) {
  expectFsimMatchesReference(progentest::withGemmRequant("zcu104"), 32000, 60);
}
TEST(ProgenReference, FsimMatchesReferenceWithGemmRequantOnLargerTiles) {
  ProgenOptions o;
  o.size_scale = 2.5;
  expectFsimMatchesReference(progentest::withGemmRequant("zcu104"), 33000, 20, o);
}

// Requantising GEMMs before the program's first SETREQ use the state after
// reset (REQ, zero operand, bias and immediate): each program on a fresh fsim.
TEST(ProgenReference, FsimMatchesReferenceOnTheRequantStateAfterReset) {
  const hw::HwConfig cfg = progentest::withGemmRequant("pynq");
  ProgenOptions o;
  o.requant_from_reset = true;
  int from_reset = 0;
  for (uint64_t seed = 34000; seed < 34060; ++seed) {
    const RandomProgram p = generateProgram(cfg, seed, o);
    from_reset += p.uses_reset_requant;
    Dram dram;
    FunctionalSimulator fsim(cfg, dram);
    const FsimRun run = runOnFsim(fsim, dram, p);
    ASSERT_EQ(firstDifference(p, run.buffers, referenceRun(cfg, p)), "") << "seed " << seed << "\n"
                                                                         << describeProgram(p);
  }
  EXPECT_GT(from_reset, 5);
}

// A program that depends on the reset state says so; the reference refuses a
// requantising GEMM before any SETREQ in one that does not.
TEST(ProgenReference, RefusesRequantBeforeSetreqUnlessTheProgramSaysSo) {
  const hw::HwConfig cfg = progentest::withGemmRequant("pynq");
  ProgenOptions o;
  o.requant_from_reset = true;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    RandomProgram p = generateProgram(cfg, seed, o);
    if (!p.uses_reset_requant) continue;
    EXPECT_NO_THROW(referenceRun(cfg, p));
    p.uses_reset_requant = false;
    try {
      referenceRun(cfg, p);
      FAIL() << "accepted a requantising GEMM before any SETREQ";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("requantising GEMM before any SETREQ"));
    }
    return;
  }
  FAIL() << "no program with a requantising GEMM before its first SETREQ";
}

// The requantised outputs depend on the SETREQ: changing the clip bounds of
// every SETREQ changes the stored bytes of many programs.
TEST(ProgenReference, RequantisedResultsDependOnSetreq) {
  const hw::HwConfig cfg = progentest::withGemmRequant("pynq");
  int changed = 0, tried = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    RandomProgram p = generateProgram(cfg, seed);
    const auto before = referenceRun(cfg, p);
    for (auto& insn : p.instructions)
      if (insn.opcode == hw::Opcode::SetReq) {
        insn.imm = insn.imm == 0x7f80 ? 0x7f00 : 0x7f80;  // clip to [0, 127] / [-128, 127]
        ++tried;
      }
    if (tried) changed += referenceRun(cfg, p) != before;
  }
  EXPECT_GT(tried, 0);
  EXPECT_GT(changed, 5);
}

// The stores really produce data that depends on the computation: changing
// one ALU immediate changes the output (so the comparison above could fail).
TEST(ProgenReference, ResultsDependOnTheProgram) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  int changed = 0, tried = 0;
  for (uint64_t seed = 0; seed < 30; ++seed) {
    RandomProgram p = generateProgram(cfg, seed);
    const auto before = referenceRun(cfg, p);
    for (auto& insn : p.instructions)
      if (insn.opcode == hw::Opcode::Alu && insn.use_imm && insn.alu_op == hw::AluOp::Add && insn.iter_out &&
          insn.iter_in && insn.uop_end > insn.uop_begin) {
        insn.imm = insn.imm == 1 ? 2 : 1;
        ++tried;
        changed += referenceRun(cfg, p) != before;
        break;
      }
  }
  EXPECT_GT(tried, 0);
  EXPECT_GT(changed, 0);
}

// The tokens the generator places matter: without them fsim's schedule (load
// runs ahead of compute, compute ahead of store) reorders hazards, and the
// comparison with the in-order reference fails for many programs.
TEST(ProgenReference, WithoutTokensTheScheduleChangesResults) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  Dram dram;
  FunctionalSimulator fsim(cfg, dram);
  int differ = 0;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    RandomProgram p = generateProgram(cfg, seed);
    for (auto& insn : p.instructions) insn.pop_prev = insn.pop_next = insn.push_prev = insn.push_next = false;
    differ += runOnFsim(fsim, dram, p).buffers != referenceRun(cfg, p);
  }
  EXPECT_GT(differ, 10);
}

TEST(ProgenReference, RefusesProgramsThatBreakTheTokenInvariant) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  RandomProgram p = generateProgram(cfg, 3);
  // Drop the first pop: its token stays behind.
  for (auto& insn : p.instructions)
    if (insn.pop_prev || insn.pop_next) {
      insn.pop_prev = insn.pop_next = false;
      break;
    }
  EXPECT_THROW(referenceRun(cfg, p), Error);
  RandomProgram q = generateProgram(cfg, 3);
  q.instructions.insert(q.instructions.begin(), q.instructions.back());  // FINISH first
  q.buffer_of.insert(q.buffer_of.begin(), -1);
  try {
    referenceRun(cfg, q);
    FAIL() << "accepted an early FINISH";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("instruction 0: FINISH before the end"));
  }
}

TEST(ProgenReference, RefusesReadsOfEntriesTheProgramDidNotWrite) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  // A STORE of OUT entry 0 with nothing written before it.
  RandomProgram p = generateProgram(cfg, 4);
  const int out = p.bufferIndex("out");
  p.instructions.insert(p.instructions.begin(), hw::makeStore(0, 0, 1, 1, 1));
  p.buffer_of.insert(p.buffer_of.begin(), out);
  try {
    referenceRun(cfg, p);
    FAIL() << "accepted a STORE of unwritten OUT entries";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no GEMM/ALU wrote"));
  }
}

}  // namespace
}  // namespace vdla::sim::progen
