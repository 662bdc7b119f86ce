// Tests of vdla_hw/assembly: the text form of programs.
#include "vdla/hw/assembly.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "hw_test_util.h"
#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"

namespace vdla::hw {
namespace {

using testing::allTestConfigs;
using testing::errorOf;

// A random instruction in the canonical form: imm is only meaningful (and only
// written by disassemble) when use_imm is set, so it is zero otherwise.
Instruction canonicalRandom(std::mt19937_64& rng, const IsaLayout& layout, Opcode op) {
  Instruction insn = testing::randomInstruction(rng, layout, op);
  if (!insn.use_imm) insn.imm = 0;
  return insn;
}

TEST(AssemblyTest, DisassembleCanonicalForms) {
  EXPECT_EQ(disassemble(makeFinish()), "FINISH");
  Instruction load = makeLoad(Memory::Input, 0, 0x40, 4, 8, 8, Padding{1, 2, 3, 4});
  load.pop_next = true;
  EXPECT_EQ(disassemble(load), "LOAD INP sram=0 dram=0x40 y=4 x=8 stride=8 pad=1,2,3,4 pop_next");
  Instruction store = makeStore(3, 0x100, 4, 8, 8);
  store.pop_prev = store.push_prev = true;
  EXPECT_EQ(disassemble(store), "STORE OUT sram=3 dram=0x100 y=4 x=8 stride=8 pop_prev push_prev");
  Instruction to_inp = makeStore(3, 0x22, 4, 8, 10);
  to_inp.memory = Memory::Input;  // STORE INP (inp_writeback): dram is an INP index
  EXPECT_EQ(disassemble(to_inp), "STORE INP sram=3 dram=0x22 y=4 x=8 stride=10");
  const IsaLayout pynq(loadConfig("pynq"));
  EXPECT_EQ(assemble("STORE INP sram=3 dram=0x22 y=4 x=8 stride=10\nFINISH\n", pynq, "t.s").front().memory,
            Memory::Input);
  LoopNest l;
  l.uop_begin = 0;
  l.uop_end = 4;
  l.iter_out = 2;
  l.iter_in = 3;
  l.dst_out = 16;
  l.dst_in = 1;
  l.src_out = 16;
  l.src_in = 1;
  l.wgt_in = 1;
  Instruction gemm = makeGemm(l, true);
  gemm.push_prev = true;
  EXPECT_EQ(disassemble(gemm), "GEMM uops=0:4 iters=2,3 dst=16,1 src=16,1 wgt=0,1 reset push_prev");
  EXPECT_EQ(disassemble(makeAluImm(AluOp::Shr, l, -3)), "ALU SHR uops=0:4 iters=2,3 dst=16,1 src=16,1 imm=-3");
  EXPECT_EQ(disassemble(makeAlu(AluOp::Max, l)), "ALU MAX uops=0:4 iters=2,3 dst=16,1 src=16,1");
  // DWGEMM's weight steps only with the outer loop (wgt_in has no field)
  EXPECT_EQ(disassemble(makeDwGemm(l, 3, 2)), "DWGEMM uops=0:4 iters=2,3 dst=16,1 src=16,1 wgt=0 taps=3 stride=2");
}

TEST(AssemblyTest, RandomRoundTripUnderEveryConfig) {
  std::mt19937_64 rng(2024);
  for (const HwConfig& c : allTestConfigs()) {
    IsaLayout layout(c);
    int failures = 0;
    for (int trial = 0; trial < 3000 && failures < 5; ++trial) {
      Instruction insn = canonicalRandom(rng, layout, testing::randomOpcode(rng, layout));
      const std::string text = disassemble(insn);
      std::vector<Instruction> back;
      try {
        back = assemble(text, layout, c.name);
      } catch (const Error& e) {
        ADD_FAILURE() << c.name << ": '" << text << "' does not assemble: " << e.what();
        ++failures;
        continue;
      }
      if (back.size() != 1 || back[0] != insn) {
        ADD_FAILURE() << c.name << ": '" << text << "' assembles to something else"
                      << (back.empty() ? "" : ": '" + disassemble(back[0]) + "'");
        ++failures;
      }
    }
  }
}

TEST(AssemblyTest, ProgramRoundTripIgnoresIndexComments) {
  std::mt19937_64 rng(99);
  IsaLayout layout(loadConfig("tiny"));
  std::vector<Instruction> program;
  for (int i = 0; i < 300; ++i) program.push_back(canonicalRandom(rng, layout, testing::randomOpcode(rng, layout)));
  const std::string text = disassembleProgram(program);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 300);
  EXPECT_NE(text.find("; 299\n"), std::string::npos);
  EXPECT_EQ(assemble(text, layout, "prog"), program);
}

TEST(AssemblyTest, ImmWithoutUseImmIsRefused) {
  // imm is only meaningful with use_imm, so a non-zero imm without it has no
  // text form and is refused by both encode and decode (one encoding per meaning).
  IsaLayout layout(loadConfig("pynq"));
  Instruction alu = makeAlu(AluOp::Add, LoopNest{});
  alu.imm = 5;
  EXPECT_NE(errorOf([&] { layout.encode(alu); }).find("must be 0 when use_imm is 0"), std::string::npos);
  alu.use_imm = true;
  EncodedInstruction bits = layout.encode(alu);
  const BitField* use_imm = nullptr;
  for (const BitField& f : layout.fields(Opcode::Alu))
    if (f.field == Field::UseImm) use_imm = &f;
  ASSERT_NE(use_imm, nullptr);
  bits[use_imm->offset / 64] &= ~(uint64_t(1) << (use_imm->offset % 64));
  EXPECT_NE(errorOf([&] { layout.decode(bits); }).find("must be 0 when use_imm is 0"), std::string::npos);
}

// The example in the header comment of assembly.h, read from the header itself.
std::string headerExample() {
  std::ifstream in(VDLA_HW_ASSEMBLY_HEADER);
  EXPECT_TRUE(in.good()) << VDLA_HW_ASSEMBLY_HEADER;
  std::string line, example;
  const std::regex example_line(R"(^//   (\S.*)$)");
  for (std::smatch m; std::getline(in, line);)
    if (std::regex_match(line, m, example_line)) example += m[1].str() + "\n";
  return example;
}

TEST(AssemblyTest, HeaderExampleAssembles) {
  const std::string text = headerExample();
  ASSERT_NE(text.find("FINISH"), std::string::npos) << text;
  for (const std::string name : {"pynq", "tiny", "ultra96", "zcu104"}) {
    SCOPED_TRACE(name);
    IsaLayout layout(loadConfig(name));
    std::vector<Instruction> p;
    ASSERT_NO_THROW(p = assemble(text, layout, "assembly.h")) << text;
    ASSERT_EQ(p.size(), 6u);
    // LOAD  INP  sram=0 dram=0x40 y=4 x=8 stride=8 pad=1,1,1,1 pop_next
    EXPECT_EQ(p[0].opcode, Opcode::Load);
    EXPECT_EQ(p[0].memory, Memory::Input);
    EXPECT_EQ(p[0].dram_base, 0x40u);
    EXPECT_EQ(p[0].y_size, 4u);
    EXPECT_EQ(p[0].x_size, 8u);
    EXPECT_EQ(p[0].x_stride, 8u);
    EXPECT_EQ(p[0].y_pad_top + p[0].y_pad_bottom + p[0].x_pad_left + p[0].x_pad_right, 4u);
    EXPECT_TRUE(p[0].pop_next);
    EXPECT_FALSE(p[0].pop_prev || p[0].push_prev || p[0].push_next);
    // LOAD  UOP  sram=0 dram=0 y=1 x=4 stride=4
    EXPECT_EQ(p[1].memory, Memory::Uop);
    EXPECT_EQ(p[1].x_size, 4u);
    // GEMM  uops=0:4 iters=2,3 dst=16,1 src=16,1 wgt=0,1 reset push_prev
    EXPECT_EQ(p[2].opcode, Opcode::Gemm);
    EXPECT_EQ(p[2].uop_begin, 0u);
    EXPECT_EQ(p[2].uop_end, 4u);
    EXPECT_EQ(p[2].iter_out, 2u);
    EXPECT_EQ(p[2].iter_in, 3u);
    EXPECT_EQ(p[2].dst_factor_out, 16u);
    EXPECT_EQ(p[2].src_factor_in, 1u);
    EXPECT_EQ(p[2].wgt_factor_out, 0u);
    EXPECT_EQ(p[2].wgt_factor_in, 1u);
    EXPECT_TRUE(p[2].reset);
    EXPECT_TRUE(p[2].push_prev);
    // ALU   MAX  uops=0:1 iters=1,16 dst=0,1 src=0,1 imm=0
    EXPECT_EQ(p[3].opcode, Opcode::Alu);
    EXPECT_EQ(p[3].alu_op, AluOp::Max);
    EXPECT_TRUE(p[3].use_imm);  // imm= given, even though it is 0
    EXPECT_EQ(p[3].imm, 0);
    EXPECT_EQ(p[3].iter_in, 16u);
    // STORE OUT  sram=0 dram=0x100 y=4 x=8 stride=8 pop_prev push_prev
    EXPECT_EQ(p[4].opcode, Opcode::Store);
    EXPECT_EQ(p[4].memory, Memory::Output);
    EXPECT_EQ(p[4].dram_base, 0x100u);
    EXPECT_TRUE(p[4].pop_prev && p[4].push_prev);
    EXPECT_EQ(p[5], makeFinish());
  }
}

TEST(AssemblyTest, CommentsBlankLinesCaseAndNumberForms) {
  IsaLayout layout(loadConfig("pynq"));
  const std::string text =
      "; a comment line\n"
      "\n"
      "   # another\n"
      "load inp sram=0x10 dram=0XFF y=1 x=2 stride=3  ; trailing comment\n"
      "alu add uops=0:1 iters=1,1 dst=0,0 src=0,0 imm=-32768 # min imm\n"
      "ALU Rshr imm=32767\n"
      "\tFINISH\tpush_next\n";
  std::vector<Instruction> p = assemble(text, layout, "t");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].opcode, Opcode::Load);
  EXPECT_EQ(p[0].memory, Memory::Input);
  EXPECT_EQ(p[0].sram_base, 16u);
  EXPECT_EQ(p[0].dram_base, 255u);
  EXPECT_EQ(p[0].x_stride, 3u);
  EXPECT_EQ(p[0].y_pad_top, 0u);  // omitted groups are zero
  EXPECT_EQ(p[1].alu_op, AluOp::Add);
  EXPECT_EQ(p[1].imm, -32768);
  EXPECT_TRUE(p[1].use_imm);
  EXPECT_EQ(p[2].alu_op, AluOp::Rshr);
  EXPECT_EQ(p[2].imm, 32767);
  EXPECT_EQ(p[2].uop_end, 0u);
  EXPECT_EQ(p[3].opcode, Opcode::Finish);
  EXPECT_TRUE(p[3].push_next);
  EXPECT_TRUE(assemble("; nothing\n\n", layout, "t").empty());
  // Every memory by name.
  const char* mems[] = {"UOP", "WGT", "INP", "ACC", "ACC8"};
  const Memory ids[] = {Memory::Uop, Memory::Weight, Memory::Input, Memory::Acc, Memory::Acc8};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(assemble(std::string("LOAD ") + mems[i], layout, "t").at(0).memory, ids[i]);
}

// Each bad line is placed on line 3, after a valid line and a blank line.
struct BadLine {
  const char* line;
  std::vector<std::string> expected;
};

TEST(AssemblyErrorTest, ErrorsCarryOriginLineAndReason) {
  const std::vector<BadLine> cases = {
      {"LOADX INP", {"unknown mnemonic 'LOADX'"}},
      {"NOP", {"unknown mnemonic 'NOP'"}},
      {"LOAD FOO sram=0", {"unknown memory 'FOO'"}},
      {"LOAD", {"needs a memory"}},
      {"ALU DIV uops=0:1", {"unknown ALU operation 'DIV'"}},
      {"ALU", {"needs an operation"}},
      {"GEMM foo=1", {"unknown operand 'foo' for GEMM"}},
      {"LOAD INP imm=1", {"unknown operand 'imm' for LOAD"}},
      {"GEMM imm=1", {"unknown operand 'imm' for GEMM"}},
      {"ALU ADD wgt=0,1", {"unknown operand 'wgt' for ALU"}},
      {"FINISH sram=0", {"unknown operand 'sram' for FINISH"}},
      {"LOAD INP pad=1,2,3", {"operand 'pad' takes 4 value(s)", "'1,2,3'"}},
      {"GEMM iters=1", {"operand 'iters' takes 2 value(s)"}},
      {"GEMM uops=0,4", {"operand 'uops' takes 2 value(s) separated by ':'"}},
      {"LOAD INP sram=1,2", {"operand 'sram' takes 1 value(s)"}},
      {"LOAD INP sram=abc", {"operand 'sram'", "'abc' is not an integer"}},
      {"LOAD INP y=1.5", {"'1.5' is not an integer"}},
      {"LOAD INP x=12abc", {"'12abc' is not an integer"}},
      {"LOAD INP dram=99999999999999999999", {"is not an integer"}},
      {"LOAD INP sram=", {"operand 'sram' has an empty value"}},
      {"LOAD INP y=65536", {"y_size = 65536 does not fit in 16 bits"}},
      {"LOAD INP sram=8192", {"sram_base = 8192 does not fit in 13 bits"}},
      {"LOAD INP sram=-1", {"sram_base", "does not fit"}},
      {"LOAD INP dram=0x100000000", {"dram_base", "does not fit in 32 bits"}},
      {"LOAD INP pad=0,0,0,16", {"x_pad_right = 16 does not fit in 4 bits"}},
      {"GEMM uops=0:16384", {"uop_end = 16384 does not fit in 14 bits"}},
      {"GEMM wgt=512,0", {"wgt_factor_out = 512 does not fit in 9 bits"}},
      {"ALU ADD imm=32768", {"imm = 32768 does not fit in 16 signed bits"}},
      {"ALU ADD imm=-32769", {"imm = -32769 does not fit in 16 signed bits"}},
      {"LOAD INP sram=1 sram=2", {"operand 'sram' given twice"}},
      {"LOAD INP pop_prev pop_prev", {"operand 'pop_prev' given twice"}},
      {"STORE ACC sram=0", {"STORE stores the OUT memory"}},
      {"STORE ACC8", {"STORE stores the OUT memory"}},
      {"LOAD OUT sram=0", {"LOAD cannot write the OUT memory"}},
      {"LOAD INP reset", {"unknown flag 'reset' for LOAD"}},
      {"ALU ADD reset", {"unknown flag 'reset' for ALU"}},
      {"FINISH pop_previous", {"unknown flag 'pop_previous' for FINISH"}},
  };
  IsaLayout layout(loadConfig("pynq"));
  for (const BadLine& c : cases) {
    SCOPED_TRACE(c.line);
    const std::string text = std::string("FINISH\n\n") + c.line + "   ; comment\nFINISH\n";
    const std::string msg = errorOf([&] { assemble(text, layout, "prog.s"); });
    EXPECT_EQ(msg.rfind("prog.s:3: ", 0), 0u) << msg;
    for (const std::string& e : c.expected)
      EXPECT_NE(msg.find(e), std::string::npos) << "'" << e << "' not in: " << msg;
  }
}

TEST(AssemblyErrorTest, RangeChecksFollowTheConfig) {
  // sram=300 fits pynq (13 bits) but not tiny (8 bits); iters=16383 fits both.
  const std::string text = "LOAD INP sram=300\nGEMM iters=16383,1\n";
  EXPECT_NO_THROW(assemble(text, IsaLayout(loadConfig("pynq")), "x"));
  const std::string msg = errorOf([&] { assemble(text, IsaLayout(loadConfig("tiny")), "x.s"); });
  EXPECT_EQ(msg.rfind("x.s:1: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("sram_base = 300 does not fit in 8 bits"), std::string::npos) << msg;
}

// DWGEMM's lane_block exists where block_in exceeds block_out (ultra96:
// 1x32x16, one bit); it is written only when not 0, and a square array
// refuses it.
TEST(AssemblyErrorTest, LaneBlockFollowsTheArray) {
  const std::string text = "DWGEMM uops=0:1 iters=1,3 dst=1,1 src=1,1 wgt=0 taps=3 stride=1 lane_block=1";
  const IsaLayout u96(loadConfig("ultra96"));
  const std::vector<Instruction> program = assemble(text, u96, "x");
  ASSERT_EQ(program.size(), 1u);
  EXPECT_EQ(program[0].lane_block, 1u);
  EXPECT_EQ(disassemble(program[0]), text);
  Instruction zero = program[0];
  zero.lane_block = 0;
  EXPECT_EQ(disassemble(zero).find("lane_block"), std::string::npos);
  std::string msg = errorOf([&] { assemble("DWGEMM iters=1,3 taps=3 stride=1 lane_block=2", u96, "x.s"); });
  EXPECT_NE(msg.find("lane_block = 2 does not fit in 1 bits"), std::string::npos) << msg;
  msg =
      errorOf([&] { assemble("DWGEMM iters=1,3 taps=3 stride=1 lane_block=1", IsaLayout(loadConfig("pynq")), "x.s"); });
  EXPECT_EQ(msg.rfind("x.s:1: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("lane_block = 1 must be below 1"), std::string::npos) << msg;
}

TEST(AssemblyErrorTest, ValuesWiderThan32BitsAreRangeChecked) {
  // Values wider than the instruction members are range-checked before they are stored.
  IsaLayout layout(loadConfig("pynq"));
  for (const char* line : {"LOAD INP sram=4294967296", "LOAD INP y=4294967297", "GEMM iters=4294967296,1",
                           "ALU ADD imm=4294967296", "ALU ADD imm=-4294967295"}) {
    SCOPED_TRACE(line);
    const std::string msg = errorOf([&] { assemble(line, layout, "big.s"); });
    EXPECT_NE(msg.find("does not fit"), std::string::npos) << msg;
  }
}

TEST(AssemblyErrorTest, LineNumbersCountEveryLine) {
  IsaLayout layout(loadConfig("pynq"));
  std::string text;
  for (int i = 0; i < 41; ++i) text += (i % 3 == 0) ? "\n" : (i % 3 == 1 ? "# c\n" : "FINISH\n");
  text += "BOGUS\n";
  const std::string msg = errorOf([&] { assemble(text, layout, "dir/file.vasm"); });
  EXPECT_EQ(msg.rfind("dir/file.vasm:42: ", 0), 0u) << msg;
}

}  // namespace
}  // namespace vdla::hw
