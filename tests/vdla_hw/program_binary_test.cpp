// Tests of vdla_hw/program_binary: instruction streams and program files.
#include "vdla/hw/program_binary.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "hw_test_util.h"
#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"

namespace vdla::hw {
namespace {

using testing::allTestConfigs;
using testing::errorOf;

uint64_t readLe(const std::vector<uint8_t>& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(b.at(at + i)) << (8 * i);
  return v;
}

void writeLe(std::vector<uint8_t>& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.at(at + i) = uint8_t(v >> (8 * i));
}

std::vector<Instruction> randomProgram(std::mt19937_64& rng, const IsaLayout& layout, int n) {
  std::vector<Instruction> p;
  for (int i = 0; i < n; ++i) p.push_back(testing::randomInstruction(rng, layout, testing::randomOpcode(rng, layout)));
  return p;
}

std::vector<Instruction> smallProgram() {
  Instruction fin = makeFinish();
  fin.pop_prev = fin.push_next = true;
  return {makeLoad(Memory::Input, 1, 0x40, 2, 3, 4), makeStore(2, 0x80, 1, 1, 1), makeGemm(LoopNest{}),
          makeAluImm(AluOp::Add, LoopNest{}, -7), fin};
}

TEST(ProgramBinaryTest, StreamIsLittleEndianSixteenBytesPerInstruction) {
  IsaLayout layout(loadConfig("pynq"));
  std::vector<Instruction> p = smallProgram();
  std::vector<uint8_t> s = encodeInstructionStream(layout, p);
  ASSERT_EQ(s.size(), p.size() * 16);
  for (size_t i = 0; i < p.size(); ++i) {
    EncodedInstruction w = layout.encode(p[i]);
    EXPECT_EQ(readLe(s, 16 * i, 8), w[0]) << i;
    EXPECT_EQ(readLe(s, 16 * i + 8, 8), w[1]) << i;
  }
  // FINISH pop_prev push_next = 0x4C in byte 0 of the last instruction.
  EXPECT_EQ(s[16 * 4], 0x4C);
  for (int k = 1; k < 16; ++k) EXPECT_EQ(s[16 * 4 + k], 0) << k;
  // LOAD INP sram=1: memory 2 at bit 7, sram 1 at bit 10 -> byte0 0x00, byte1 0x05.
  EXPECT_EQ(s[0], 0x00);
  EXPECT_EQ(s[1], 0x05);
  EXPECT_EQ(decodeInstructionStream(layout, s.data(), s.size()), p);
}

TEST(ProgramBinaryTest, FileRoundTripEveryConfig) {
  std::mt19937_64 rng(31337);
  for (const HwConfig& c : allTestConfigs()) {
    SCOPED_TRACE(c.name);
    IsaLayout layout(c);
    std::vector<Instruction> p = randomProgram(rng, layout, 500);
    std::vector<uint8_t> file = writeProgramFile(c, p);
    ASSERT_EQ(file.size(), 24 + 16 * p.size());
    EXPECT_EQ(std::memcmp(file.data(), "VDLAPRG\0", 8), 0);
    EXPECT_EQ(readLe(file, 8, 4), 1u);         // version
    EXPECT_EQ(readLe(file, 12, 4), p.size());  // count
    EXPECT_EQ(readLe(file, 16, 8), c.hash);    // hash
    EXPECT_EQ(std::vector<uint8_t>(file.begin() + 24, file.end()), encodeInstructionStream(layout, p));
    EXPECT_EQ(readProgramFile(c, file, "prog.bin"), p);
  }
}

TEST(ProgramBinaryTest, EmptyProgram) {
  HwConfig c = loadConfig("tiny");
  std::vector<uint8_t> file = writeProgramFile(c, {});
  EXPECT_EQ(file.size(), 24u);
  EXPECT_TRUE(readProgramFile(c, file, "empty.bin").empty());
  EXPECT_TRUE(decodeInstructionStream(IsaLayout(c), nullptr, 0).empty());
}

TEST(ProgramBinaryErrorTest, BadMagic) {
  HwConfig c = loadConfig("pynq");
  std::vector<uint8_t> file = writeProgramFile(c, smallProgram());
  for (size_t at : {0, 3, 7}) {
    std::vector<uint8_t> bad = file;
    bad[at] ^= 0x20;
    const std::string msg = errorOf([&] { readProgramFile(c, bad, "bad.bin"); });
    EXPECT_EQ(msg.rfind("bad.bin: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("bad magic"), std::string::npos) << msg;
  }
}

TEST(ProgramBinaryErrorTest, ShortHeader) {
  HwConfig c = loadConfig("pynq");
  std::vector<uint8_t> file = writeProgramFile(c, {});
  for (size_t n : {0, 7, 8, 16, 23}) {
    std::vector<uint8_t> bad(file.begin(), file.begin() + n);
    const std::string msg = errorOf([&] { readProgramFile(c, bad, "short.bin"); });
    EXPECT_EQ(msg.rfind("short.bin: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("24-byte header"), std::string::npos) << msg;
  }
}

TEST(ProgramBinaryErrorTest, WrongVersion) {
  HwConfig c = loadConfig("pynq");
  std::vector<uint8_t> file = writeProgramFile(c, smallProgram());
  for (uint32_t v : {0u, 2u, 0x01000000u}) {
    writeLe(file, 8, v, 4);
    const std::string msg = errorOf([&] { readProgramFile(c, file, "v.bin"); });
    EXPECT_NE(msg.find("v.bin: program file version " + std::to_string(v) + " is not supported"), std::string::npos)
        << msg;
  }
}

TEST(ProgramBinaryErrorTest, HashMismatchNamesBothHashes) {
  HwConfig tiny = loadConfig("tiny");
  HwConfig pynq = loadConfig("pynq");
  std::vector<uint8_t> file = writeProgramFile(tiny, smallProgram());
  const std::string msg = errorOf([&] { readProgramFile(pynq, file, "tiny.bin"); });
  EXPECT_EQ(msg.rfind("tiny.bin: ", 0), 0u) << msg;
  EXPECT_NE(msg.find(tiny.hashHex()), std::string::npos) << msg;
  EXPECT_NE(msg.find(pynq.hashHex()), std::string::npos) << msg;
  EXPECT_NE(msg.find("'pynq'"), std::string::npos) << msg;
  // A single flipped hash bit is caught too.
  std::vector<uint8_t> flipped = writeProgramFile(pynq, smallProgram());
  flipped[23] ^= 0x80;
  EXPECT_NE(errorOf([&] { readProgramFile(pynq, flipped, "f.bin"); }).find("hash"), std::string::npos);
}

TEST(ProgramBinaryErrorTest, TruncatedOrOversizedPayload) {
  HwConfig c = loadConfig("pynq");
  std::vector<uint8_t> file = writeProgramFile(c, smallProgram());  // 5 instructions
  struct Case {
    size_t size;
    std::string payload;
  };
  for (const Case& k : std::vector<Case>{{file.size() - 1, "79 bytes"},
                                         {file.size() - 16, "64 bytes"},
                                         {24, "0 bytes"},
                                         {file.size() + 16, "96 bytes"}}) {
    std::vector<uint8_t> bad = file;
    bad.resize(k.size, 0);
    const std::string msg = errorOf([&] { readProgramFile(c, bad, "t.bin"); });
    EXPECT_EQ(msg.rfind("t.bin: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("header announces 5 instructions (80 bytes) but " + k.payload + " follow"), std::string::npos)
        << msg;
  }
  // A count that disagrees with an intact payload.
  std::vector<uint8_t> bad = file;
  writeLe(bad, 12, 6, 4);
  EXPECT_NE(errorOf([&] { readProgramFile(c, bad, "t.bin"); }).find("announces 6 instructions"), std::string::npos);
}

TEST(ProgramBinaryErrorTest, StreamSizeNotMultipleOf16) {
  IsaLayout layout(loadConfig("pynq"));
  std::vector<uint8_t> s = encodeInstructionStream(layout, smallProgram());
  for (size_t n : {size_t(1), size_t(15), size_t(17), s.size() - 1}) {
    const std::string msg = errorOf([&] { decodeInstructionStream(layout, s.data(), n); });
    EXPECT_NE(msg.find(std::to_string(n) + " bytes is not a multiple of 16"), std::string::npos) << msg;
  }
}

TEST(ProgramBinaryErrorTest, UndecodableInstructionNamesItsIndex) {
  HwConfig c = loadConfig("pynq");
  c.alu_bias_clear = false;  // its flag is the ALU's bit 127, the stray bit below
  IsaLayout layout(c);
  std::vector<uint8_t> s = encodeInstructionStream(layout, smallProgram());
  // instruction 3: opcode 7.
  std::vector<uint8_t> bad_op = s;
  bad_op[16 * 3] |= 0x07;
  std::string msg = errorOf([&] { decodeInstructionStream(layout, bad_op.data(), bad_op.size()); });
  EXPECT_NE(msg.find("instruction 3: unknown opcode 7"), std::string::npos) << msg;
  // instruction 3: a stray bit in the last byte.
  std::vector<uint8_t> stray = s;
  stray[16 * 3 + 15] |= 0x80;
  msg = errorOf([&] { decodeInstructionStream(layout, stray.data(), stray.size()); });
  EXPECT_NE(msg.find("instruction 3: "), std::string::npos) << msg;
  EXPECT_NE(msg.find("outside its fields"), std::string::npos) << msg;
  // Through a program file, the origin comes first.
  std::vector<uint8_t> file = writeProgramFile(c, smallProgram());
  std::copy(bad_op.begin(), bad_op.end(), file.begin() + 24);
  msg = errorOf([&] { readProgramFile(c, file, "corrupt.bin"); });
  EXPECT_EQ(msg.rfind("corrupt.bin: instruction 3: unknown opcode 7", 0), 0u) << msg;
}

TEST(ProgramBinaryErrorTest, UnencodableInstructionNamesItsIndex) {
  HwConfig c = loadConfig("tiny");
  std::vector<Instruction> p = smallProgram();
  p[2].uop_end = 512;  // tiny: 256 micro-ops, uop_end has 9 bits
  std::string msg = errorOf([&] { encodeInstructionStream(IsaLayout(c), p); });
  EXPECT_NE(msg.find("instruction 2: GEMM field uop_end = 512"), std::string::npos) << msg;
  msg = errorOf([&] { writeProgramFile(c, p); });
  EXPECT_NE(msg.find("instruction 2: "), std::string::npos) << msg;
}

TEST(ProgramBinaryTest, MicroOpsAreLittleEndianWords) {
  IsaLayout layout(loadConfig("pynq"));
  std::vector<uint8_t> b = encodeMicroOps(layout, {{1, 2, 3}, {2047, 4095, 511}});
  ASSERT_EQ(b.size(), 8u);
  EXPECT_EQ(readLe(b, 0, 4), 1u | (2u << 11) | (3u << 23));
  EXPECT_EQ(readLe(b, 4, 4), 0xFFFFFFFFu);
  const std::string msg = errorOf([&] { encodeMicroOps(layout, {{0, 0, 0}, {0, 0, 512}}); });
  EXPECT_NE(msg.find("micro-op 1: micro-op wgt index 512"), std::string::npos) << msg;
}

}  // namespace
}  // namespace vdla::hw
