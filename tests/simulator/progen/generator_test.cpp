// The generator's guarantees: every program runs on fsim (no bounds error, no
// deadlock, no leftover token), satisfies the sequential token invariant and
// reads only what it wrote (checked by the reference interpreter), gives the
// same result whatever the queue depths, is a function of the seed, and over
// many seeds exercises every part of the ISA. Bad options are refused clearly.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "requant_config.h"
#include "vdla/hw/config.h"
#include "vdla/hw/error.h"
#include "vdla/sim/progen.h"
#include "vdla/sim/progen_fsim.h"
#include "vdla/sim/progen_reference.h"

namespace vdla::sim::progen {
namespace {

using ::testing::HasSubstr;

struct FsimRig {
  hw::HwConfig cfg;
  Dram dram;
  FunctionalSimulator fsim;
  explicit FsimRig(hw::HwConfig c) : cfg(std::move(c)), fsim(cfg, dram) {}
};

// Runs `count` seeds on one fsim (so on-chip state carries over between
// programs, which the programs must not depend on).
void expectValid(const hw::HwConfig& config, uint64_t first_seed, int count, const ProgenOptions& opts) {
  FsimRig rig(config);
  for (int k = 0; k < count; ++k) {
    const uint64_t seed = first_seed + uint64_t(k);
    RandomProgram p = generateProgram(rig.cfg, seed, opts);
    ASSERT_EQ(p.instructions.back().opcode, hw::Opcode::Finish);
    ASSERT_NO_THROW(checkProgramStructure(p.instructions)) << "seed " << seed;
    try {
      FsimRun run = runOnFsim(rig.fsim, rig.dram, p);
      ASSERT_EQ(run.stats.instructions[int(hw::Opcode::Finish)], 1u);
      analyzeProgram(rig.cfg, p);  // the schedule model must not deadlock either
      referenceRun(rig.cfg, p);    // bounds, defined reads, sequential tokens
    } catch (const Error& e) {
      FAIL() << "seed " << seed << ": " << e.what() << "\n" << describeProgram(p);
    }
  }
}

void expectValid(const std::string& config, uint64_t first_seed, int count, const ProgenOptions& opts) {
  expectValid(hw::loadConfig(config), first_seed, count, opts);
}

TEST(ProgenValid, FiveHundredTinyPrograms) { expectValid("tiny", 1, 500, {}); }

TEST(ProgenValid, FiftyPynqPrograms) { expectValid("pynq", 1, 50, {}); }

TEST(ProgenValid, OptionVariants) {
  ProgenOptions small;
  small.size_scale = 0.25;
  expectValid("tiny", 1000, 40, small);
  ProgenOptions large;
  large.size_scale = 3;
  large.length = 60;
  expectValid("tiny", 2000, 40, large);
  ProgenOptions calm;
  calm.queue_filling = false;
  calm.padding = false;
  calm.alu_self_overlap = false;
  expectValid("tiny", 3000, 40, calm);
  ProgenOptions alu_only;
  alu_only.ops = kLoadUop | kLoadAcc | kAlu | kStore;
  alu_only.alu_ops = 1u << int(hw::AluOp::Rshr);
  expectValid("tiny", 4000, 40, alu_only);
  ProgenOptions loads_only;
  loads_only.ops = kLoadInp | kLoadWgt | kLoadAcc8;
  expectValid("tiny", 5000, 20, loads_only);
  ProgenOptions long_programs;
  long_programs.length = 400;
  expectValid("tiny", 6000, 5, long_programs);
  expectValid("ultra96", 7000, 5, {});
}

// gemm_requant: SETREQ and requantising GEMMs, also with few micro-ops per
// table (size 0.25), large tiles, requant GEMMs on the reset state, and only
// REQ selected on a config that has FREQ.
TEST(ProgenValid, GemmRequantPrograms) {
  expectValid(progentest::withGemmRequant("pynq"), 1, 50, {});
  expectValid(progentest::withGemmRequant("ultra96"), 100, 10, {});
  expectValid(progentest::withGemmRequant("zcu104"), 200, 20, {});
  ProgenOptions small;
  small.size_scale = 0.25;
  expectValid(progentest::withGemmRequant("zcu104"), 300, 30, small);
  ProgenOptions large;
  large.size_scale = 3;
  large.length = 60;
  expectValid(progentest::withGemmRequant("pynq"), 400, 10, large);
  ProgenOptions from_reset;
  from_reset.requant_from_reset = true;
  expectValid(progentest::withGemmRequant("pynq"), 500, 30, from_reset);
  ProgenOptions req_only;
  req_only.alu_ops = 1u << int(hw::AluOp::Req);
  expectValid(progentest::withGemmRequant("zcu104"), 600, 10, req_only);
  for (uint64_t seed = 600; seed < 610; ++seed)
    for (const auto& insn : generateProgram(progentest::withGemmRequant("zcu104"), seed, req_only).instructions) {
      if (insn.opcode == hw::Opcode::SetReq) {
        ASSERT_EQ(insn.alu_op, hw::AluOp::Req);
      }
    }
  // Neither REQ nor FREQ selected: no SETREQ and no requantising GEMM.
  ProgenOptions neither;
  neither.alu_ops = 1u << int(hw::AluOp::Add);
  for (uint64_t seed = 700; seed < 710; ++seed)
    for (const auto& insn : generateProgram(progentest::withGemmRequant("zcu104"), seed, neither).instructions) {
      ASSERT_NE(insn.opcode, hw::Opcode::SetReq);
      ASSERT_FALSE(insn.requant && insn.iter_out && insn.iter_in && insn.uop_end > insn.uop_begin);
    }
}

// The result may not depend on scheduling: the same program on fsims with
// other command/token queue depths (the encoding does not depend on them)
// leaves the same bytes. Token queues are only made deeper: the generator
// keeps within the configured depth in program order.
// The narrowest transfer fields (xfer_size_bits 4: sizes and strides up to
// 15) with sizes that would exceed them: transfers are cut to fit, and the
// micro-op table (72 entries at size_scale 3) is loaded in several LOADs.
TEST(ProgenValid, NarrowTransferFields) {
  const hw::HwConfig narrow = hw::parseConfig(R"({
    "name": "tiny_xfer4",
    "target": {"board": "pynq-z1", "part": "xc7z020clg400-1", "clock_mhz": 100},
    "gemm": {"batch": 2, "block_in": 4, "block_out": 8},
    "data_bits": {"input": 8, "weight": 8, "accumulator": 32, "output": 8},
    "buffers_kib": {"uop": 1, "input": 1, "weight": 2, "accumulator": 4, "output": 1},
    "axi": {"data_bits": 64},
    "queues": {"command_depth": 4, "token_depth": 4},
    "isa": {"dram_addr_bits": 32, "xfer_size_bits": 4, "pad_bits": 4, "loop_iter_bits": 14, "alu_imm_bits": 16}
  })",
                                              "generator_test");
  ProgenOptions large;
  large.size_scale = 3;
  expectValid(narrow, 3000, 40, large);
}

TEST(ProgenValid, ResultDoesNotDependOnQueueDepths) {
  const hw::HwConfig tiny = hw::loadConfig("tiny");
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    RandomProgram p = generateProgram(tiny, seed);
    FsimRig base(tiny);
    const FsimRun expected = runOnFsim(base.fsim, base.dram, p);
    for (uint32_t command_depth : {1u, 2u, 64u}) {
      hw::HwConfig c = tiny;
      c.command_queue_depth = command_depth;
      c.token_queue_depth = tiny.token_queue_depth * (command_depth == 2 ? 16 : 1);
      FsimRig rig(c);
      EXPECT_EQ(runOnFsim(rig.fsim, rig.dram, p).buffers, expected.buffers)
          << "seed " << seed << ", command depth " << command_depth;
    }
  }
}

TEST(ProgenDeterminism, SameSeedSameProgram) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  for (uint64_t seed : {0ull, 7ull, 123456789ull}) {
    RandomProgram a = generateProgram(cfg, seed), b = generateProgram(cfg, seed);
    EXPECT_EQ(a.instructions, b.instructions);
    EXPECT_EQ(a.buffer_of, b.buffer_of);
    EXPECT_EQ(a.uops, b.uops);
    ASSERT_EQ(a.buffers.size(), b.buffers.size());
    for (size_t i = 0; i < a.buffers.size(); ++i) EXPECT_EQ(a.buffers[i].init, b.buffers[i].init);
    EXPECT_EQ(describeProgram(a), describeProgram(b));
  }
}

TEST(ProgenDeterminism, DifferentSeedsDifferentPrograms) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  std::vector<std::string> listings;
  for (uint64_t seed = 0; seed < 20; ++seed) listings.push_back(describeProgram(generateProgram(cfg, seed)));
  std::sort(listings.begin(), listings.end());
  EXPECT_EQ(std::unique(listings.begin(), listings.end()), listings.end());
}

TEST(ProgenOptions, BadOptionsAreRefusedWithTheReason) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  auto why = [&](ProgenOptions o) -> std::string {
    try {
      generateProgram(cfg, 1, o);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  ProgenOptions o;
  o.length = 0;
  EXPECT_THAT(why(o), HasSubstr("length must be at least 1"));
  o = {};
  o.size_scale = 0;
  EXPECT_THAT(why(o), HasSubstr("size_scale"));
  o = {};
  o.ops = kAllOps & ~kLoadInp;
  EXPECT_THAT(why(o), HasSubstr("GEMM needs LOAD UOP, LOAD INP"));
  o = {};
  o.ops = kLoadAcc | kStore;
  EXPECT_THAT(why(o), HasSubstr("STORE needs GEMM or ALU"));
  o = {};
  o.alu_ops = 0;
  EXPECT_THAT(why(o), HasSubstr("alu_ops"));
  o = {};
  o.ops = 0;
  EXPECT_THAT(why(o), HasSubstr("non-empty set"));
  hw::HwConfig no_pad = cfg;
  no_pad.pad_bits = 0;
  EXPECT_THROW(generateProgram(no_pad, 1, {}), Error);
}

TEST(ProgenRelocate, AddsTheBufferBaseAndRefusesMisalignedBuffers) {
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  RandomProgram p = generateProgram(cfg, 5);
  std::vector<uint64_t> addrs(p.buffers.size());
  for (size_t b = 0; b < addrs.size(); ++b) addrs[b] = 0x100000 * (b + 1);
  std::vector<hw::Instruction> r = relocate(cfg, p, addrs);
  for (size_t i = 0; i < r.size(); ++i) {
    if (p.buffer_of[i] < 0) {
      EXPECT_EQ(r[i], p.instructions[i]);
      continue;
    }
    const auto& buf = p.buffers[size_t(p.buffer_of[i])];
    EXPECT_EQ(r[i].dram_base, p.instructions[i].dram_base + addrs[size_t(p.buffer_of[i])] / cfg.entryBytes(buf.memory));
  }
  addrs[size_t(p.bufferIndex("wgt"))] += 16;  // WGT entries are 256 bytes on pynq
  EXPECT_THROW(relocate(cfg, p, addrs), Error);
}

}  // namespace
}  // namespace vdla::sim::progen
