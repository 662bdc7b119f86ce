// Directed tests of the instruction semantics, with expected values worked out
// from the comments in vdla/hw/isa.h (GEMM reset and 32-bit wrapping
// accumulation, OUT as the low byte of the accumulator, every ALU op on edge
// values, 2-D loads with stride and padding, ACC8 sign extension, and SRAM
// contents that persist across runs).
#include <climits>
#include <cstring>
#include <fstream>
#include <random>

#include "sim_test_util.h"

namespace vdla::simtest {
namespace {

using hw::makeAlu;
using hw::makeAluImm;
using hw::makeFinish;
using hw::makeGemm;
using hw::makeLoad;
using hw::makeStore;

// ---------------------------------------------------------------------------
// ALU

struct AluCase {
  AluOp op;
  int32_t a, b, expected;
};

// Worked out by hand from the isa.h comments.
const AluCase kAluCases[] = {
    {AluOp::Min, 5, -3, -3},
    {AluOp::Min, INT32_MIN, INT32_MAX, INT32_MIN},
    {AluOp::Min, -1, 0, -1},
    {AluOp::Min, 7, 7, 7},
    {AluOp::Max, 5, -3, 5},
    {AluOp::Max, INT32_MIN, INT32_MAX, INT32_MAX},
    {AluOp::Max, -1, 0, 0},
    {AluOp::Add, INT32_MAX, 1, INT32_MIN},
    {AluOp::Add, INT32_MIN, -1, INT32_MAX},
    {AluOp::Add, INT32_MIN, INT32_MIN, 0},
    {AluOp::Add, -5, 3, -2},
    {AluOp::Mul, 65536, 65536, 0},
    {AluOp::Mul, INT32_MIN, -1, INT32_MIN},
    {AluOp::Mul, -3, 7, -21},
    {AluOp::Mul, 0x10001, 0x10001, 0x20001},
    {AluOp::Mul, 46341, 46341, -2147479015},
    {AluOp::Shr, -8, 1, -4},
    {AluOp::Shr, -7, 1, -4},  // arithmetic: rounds toward minus infinity
    {AluOp::Shr, 0x40000000, 30, 1},
    {AluOp::Shr, INT32_MIN, 31, -1},
    {AluOp::Shr, INT32_MIN, 40, -1},  // clamped to 31
    {AluOp::Shr, INT32_MAX, 40, 0},
    {AluOp::Shr, -2, INT32_MAX, -1},
    {AluOp::Shr, 5, 0, 5},
    {AluOp::Shr, 1, -1, 2},
    {AluOp::Shr, 0x12345678, -4, 0x23456780},
    {AluOp::Shr, 1, -31, INT32_MIN},
    {AluOp::Shr, 1, -40, INT32_MIN},  // clamped to -31
    {AluOp::Shr, 3, -40, INT32_MIN},  // low 32 bits of 3 << 31
    {AluOp::Shr, 1, INT32_MIN, INT32_MIN},
    {AluOp::Rshr, 5, 1, 3},
    {AluOp::Rshr, 4, 1, 2},
    {AluOp::Rshr, -5, 1, -2},  // half rounds up
    {AluOp::Rshr, -6, 1, -3},
    {AluOp::Rshr, -1, 1, 0},
    {AluOp::Rshr, -3, 1, -1},
    {AluOp::Rshr, 6, 2, 2},
    {AluOp::Rshr, 5, 2, 1},
    {AluOp::Rshr, INT32_MAX, 1, 1073741824},  // no 32-bit overflow of the rounding add
    {AluOp::Rshr, INT32_MIN, 1, -1073741824},
    {AluOp::Rshr, INT32_MAX, 31, 1},
    {AluOp::Rshr, INT32_MAX, 40, 1},  // clamped to 31
    {AluOp::Rshr, INT32_MIN, 31, -1},
    {AluOp::Rshr, 0x40000000, 31, 1},
    {AluOp::Rshr, -1, 31, 0},
    {AluOp::Rshr, 7, 0, 7},
    {AluOp::Rshr, 1, -2, 4},
    {AluOp::Rshr, 1, -40, INT32_MIN},
    {AluOp::Mov, 123, -456, -456},
    {AluOp::Mov, INT32_MIN, INT32_MAX, INT32_MAX},
    // CLIP: b = hi << 8 | (lo & 0xff).
    {AluOp::Clip, 200, 127 << 8, 127},
    {AluOp::Clip, -5, 127 << 8, 0},
    {AluOp::Clip, 50, 127 << 8, 50},
    {AluOp::Clip, INT32_MIN, 0x7f80, -128},
    {AluOp::Clip, INT32_MAX, 0x7f80, 127},
    {AluOp::Clip, 0, 0xf60a, -10},        // lo 10 > hi -10: hi wins
    {AluOp::Clip, 300, 0x12347f00, 127},  // bits above 15 are ignored
    {AluOp::Clip, 5, -1, -1},             // lo = hi = -1
    // MULSHR: b = m << 6 | s.
    {AluOp::MulShr, 5, 3 * 64 + 1, 8},                    // (15 + 1) >> 1
    {AluOp::MulShr, -5, 3 * 64 + 1, -7},                  // (-15 + 1) >> 1
    {AluOp::MulShr, -6, 64 + 2, -1},                      // (-6 + 2) >> 2
    {AluOp::MulShr, -2, 64 + 2, 0},                       // half rounds up
    {AluOp::MulShr, -3, 7 * 64, -21},                     // s = 0: a plain product
    {AluOp::MulShr, 7, -64, -7},                          // m = -1
    {AluOp::MulShr, INT32_MAX, INT32_MAX, 0},             // m = 2^25-1, s = 63: (2^56 + 2^62) >> 63
    {AluOp::MulShr, INT32_MIN, INT32_MIN, 0},             // m = -2^25, s = 0: 2^56, low 32 bits
    {AluOp::MulShr, INT32_MIN, INT32_MIN + 30, 1 << 26},  // (2^56 + 2^29) >> 30
    {AluOp::MulShr, 0x40000000, 8 * 64 + 2, INT32_MIN},   // 2^33 >> 2 = 2^31: low 32 bits
};

TEST(IsaAluReference, AgreesWithHandWorkedCases) {
  for (const AluCase& c : kAluCases)
    EXPECT_EQ(isaAlu(c.op, c.a, c.b), c.expected) << hw::aluOpName(c.op) << "(" << c.a << ", " << c.b << ")";
}

// Runs `op` with a tensor operand: a at acc[0, k), b at acc[k, 2k); returns
// the 32-bit results.
std::vector<int32_t> runAluTensor(Rig& rig, AluOp op, const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  const uint32_t lanes = rig.accLanes();
  const uint32_t k = uint32_t(a.size() / lanes);
  rig.writeAcc(0, a);
  rig.writeAcc(k, b);
  uint64_t uop = rig.uploadUops({{0, k, 0}});
  rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), makeAlu(op, {0, 1, 1, k, 0, 1, 0, 1}), makeFinish()});
  rig.dram.release(uop);
  return rig.readAcc(0, k, 2 * k);
}

std::vector<int32_t> runAluImm(Rig& rig, AluOp op, const std::vector<int32_t>& a, int32_t imm) {
  const uint32_t k = uint32_t(a.size() / rig.accLanes());
  rig.writeAcc(0, a);
  // The micro-op's src points past the accumulator memory (64 entries on tiny):
  // an immediate ALU must not read it.
  uint64_t uop = rig.uploadUops({{0, 100, 0}});
  rig.runStream(
      {makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), makeAluImm(op, {0, 1, 1, k, 0, 1, 0, 0}, imm), makeFinish()});
  rig.dram.release(uop);
  return rig.readAcc(0, k, k);
}

TEST(FsimAlu, EveryOpOnEdgeValuesWithTensorOperand) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  for (int op = 0; op < hw::numAluOps(rig.cfg); ++op) {
    std::vector<AluCase> cases;
    for (const AluCase& c : kAluCases)
      if (int(c.op) == op) cases.push_back(c);
    ASSERT_FALSE(cases.empty());
    ASSERT_LE(cases.size(), size_t(2) * lanes);
    std::vector<int32_t> a(2 * lanes, 0), b(2 * lanes, 0);
    for (size_t i = 0; i < cases.size(); ++i) a[i] = cases[i].a, b[i] = cases[i].b;
    std::vector<int32_t> got = runAluTensor(rig, AluOp(op), a, b);
    for (size_t i = 0; i < cases.size(); ++i)
      EXPECT_EQ(got[i], cases[i].expected)
          << hw::aluOpName(AluOp(op)) << "(" << cases[i].a << ", " << cases[i].b << ")";
    for (size_t i = cases.size(); i < a.size(); ++i) EXPECT_EQ(got[i], isaAlu(AluOp(op), 0, 0));
  }
}

TEST(FsimAlu, EveryOpWithImmediateOnEdgeValues) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  const int32_t edges[] = {0,           1,      -1,     2,         -2,        127,           -128,          255,
                           256,         32767,  -32768, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1, 0x12345678,
                           -0x12345678, 1000000};
  std::vector<int32_t> a(2 * lanes);
  for (size_t i = 0; i < a.size(); ++i) a[i] = edges[i % std::size(edges)];
  const int32_t imms[] = {0, 1, -1, 7, 31, -31, 32767, -32768};
  const int32_t shift_imms[] = {0, 1, 2, 8, 30, 31, 32, 40, 32767, -1, -8, -31, -32, -40, -32768};
  for (int op = 0; op < hw::numAluOps(rig.cfg); ++op) {
    const bool shift = AluOp(op) == AluOp::Shr || AluOp(op) == AluOp::Rshr;
    std::vector<int32_t> list = shift ? std::vector<int32_t>(std::begin(shift_imms), std::end(shift_imms))
                                      : std::vector<int32_t>(std::begin(imms), std::end(imms));
    for (int32_t imm : list) {
      std::vector<int32_t> got = runAluImm(rig, AluOp(op), a, imm);
      for (size_t i = 0; i < a.size(); ++i)
        ASSERT_EQ(got[i], isaAlu(AluOp(op), a[i], imm)) << hw::aluOpName(AluOp(op)) << " imm " << imm << " on " << a[i];
    }
  }
}

// REQ (extension fused_requant): MULSHR by the operand, then CLIP with the
// bounds in the immediate, with a tensor operand and with the immediate as both.
TEST(FsimAlu, ReqIsMulShrThenClipByTheImmediate) {
  Rig rig("pynq");
  ASSERT_TRUE(rig.cfg.fused_requant);
  std::mt19937_64 rng(91);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), mult(-(1 << 20), 1 << 20), shift(0, 40),
      bound(-128, 127);
  const uint32_t k = 4, n = k * rig.accLanes();
  for (int trial = 0; trial < 8; ++trial) {
    std::vector<int32_t> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) a[i] = any(rng) >> (trial % 4) * 6, b[i] = mult(rng) * 64 + shift(rng);
    const int32_t lo = bound(rng), hi = trial == 3 ? lo - 1 : bound(rng);  // crossed bounds once: hi wins
    const int32_t bounds = int32_t(int16_t(uint16_t((uint32_t(hi) & 0xff) << 8 | (uint32_t(lo) & 0xff))));
    rig.writeAcc(0, a);
    rig.writeAcc(k, b);
    const uint64_t uop = rig.uploadUops({{0, k, 0}});
    hw::Instruction req = makeAlu(AluOp::Req, {0, 1, 1, k, 0, 1, 0, 1});
    req.imm = bounds;
    rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), req, makeFinish()});
    rig.dram.release(uop);
    const std::vector<int32_t> got = rig.readAcc(0, k, 2 * k);
    for (uint32_t i = 0; i < n; ++i) {
      const int32_t want = isaAlu(AluOp::Clip, isaAlu(AluOp::MulShr, a[i], b[i]), bounds);
      ASSERT_EQ(got[i], want) << "REQ(" << a[i] << ", " << b[i] << ") bounds " << lo << ".." << hi;
      ASSERT_EQ(got[i], isaAlu(AluOp::Req, a[i], b[i], bounds));
    }
    // The immediate form: one value is the MULSHR operand and the bounds.
    const int32_t imm = int32_t(int16_t(uint16_t(rng())));
    const std::vector<int32_t> by_imm = runAluImm(rig, AluOp::Req, a, imm);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(by_imm[i], isaAlu(AluOp::Req, a[i], imm, imm)) << "imm " << imm;
  }
}

TEST(FsimAlu, ReqIsRefusedWithoutTheExtension) {
  const hw::HwConfig tiny = hw::loadConfig("tiny");
  ASSERT_FALSE(tiny.fused_requant);
  const hw::IsaLayout layout(tiny);
  hw::Instruction req = makeAlu(AluOp::Req, {0, 1, 1, 1, 0, 1, 0, 1});
  try {
    layout.encode(req);
    FAIL() << "REQ encoded on tiny";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fused_requant"), std::string::npos) << e.what();
  }
}

TEST(FsimAlu, FreqIsRefusedWithoutTheExtension) {
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  ASSERT_TRUE(pynq.fused_requant);
  ASSERT_FALSE(pynq.float_requant);
  const hw::IsaLayout layout(pynq);
  hw::Instruction freq = makeAlu(AluOp::FReq, {0, 1, 1, 1, 0, 1, 0, 1});
  try {
    layout.encode(freq);
    FAIL() << "FREQ encoded on pynq";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("float_requant"), std::string::npos) << e.what();
  }
}

// bias_clear (extension alu_bias_clear): REQ of (acc + bias) with the bias in
// ACC[src+1], the result in OUT only, the accumulator left at zero; with an
// immediate operand no bias is read.
TEST(FsimAlu, BiasClearAddsTheNextEntryWritesOutAndZeroesTheAccumulator) {
  Rig rig("pynq");
  ASSERT_TRUE(rig.cfg.alu_bias_clear);
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), mult(-(1 << 20), 1 << 20), shift(0, 40);
  const uint32_t k = 3, lanes = rig.accLanes(), n = k * lanes;
  // a at [0, k); b (operand) at k and bias at k+1 for every vector.
  std::vector<int32_t> a(n), param(2 * lanes);
  for (uint32_t i = 0; i < n; ++i) a[i] = any(rng) >> 8;
  for (uint32_t i = 0; i < lanes; ++i) param[i] = mult(rng) * 64 + shift(rng), param[lanes + i] = any(rng);
  param[lanes] = INT32_MAX;  // acc + bias wraps in lane 0 of every vector
  a[0] = a[lanes] = 5;
  rig.writeAcc(0, a);
  rig.writeAcc(k, param);
  const int32_t bounds = int32_t(int16_t(uint16_t(0x7f80)));  // [-128, 127]
  const uint64_t uop = rig.uploadUops({{0, k, 0}});
  hw::Instruction req = makeAlu(AluOp::Req, {0, 1, 1, k, 0, 1, 0, 0});  // src stays at k
  req.imm = bounds;
  req.bias_clear = true;
  rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), req, makeFinish()});
  rig.dram.release(uop);
  const std::vector<int8_t> out = rig.readOut(0, k);
  const std::vector<int32_t> acc = rig.readAcc(0, k, k + 2);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t lane = i % lanes;
    const int32_t sum = int32_t(uint32_t(a[i]) + uint32_t(param[lanes + lane]));
    EXPECT_EQ(out[i], int8_t(isaAlu(AluOp::Req, sum, param[lane], bounds))) << "element " << i;
    EXPECT_EQ(acc[i], 0) << "element " << i;
  }
  // The immediate form reads no bias: REQ of the accumulator alone.
  rig.writeAcc(0, a);
  const uint64_t uop2 = rig.uploadUops({{0, 0, 0}});
  hw::Instruction imm_req = makeAluImm(AluOp::Req, {0, 1, 1, k, 0, 1, 0, 0}, 6);
  imm_req.bias_clear = true;
  rig.runStream({makeLoad(Memory::Uop, 0, uop2 / 4, 1, 1, 1), imm_req, makeFinish()});
  rig.dram.release(uop2);
  const std::vector<int8_t> out2 = rig.readOut(0, k);
  for (uint32_t i = 0; i < n; ++i) EXPECT_EQ(out2[i], int8_t(isaAlu(AluOp::Req, a[i], 6, 6))) << "element " << i;
}

TEST(FsimAlu, BiasClearIsRefusedWithoutTheExtension) {
  const hw::HwConfig tiny = hw::loadConfig("tiny");
  ASSERT_FALSE(tiny.alu_bias_clear);
  hw::Instruction add = makeAlu(AluOp::Add, {0, 1, 1, 1, 0, 1, 0, 1});
  add.bias_clear = true;
  try {
    hw::IsaLayout(tiny).encode(add);
    FAIL() << "bias_clear encoded on tiny";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("alu_bias_clear"), std::string::npos) << e.what();
  }
}

TEST(FsimAlu, RandomOperandsMatchIsaReference) {
  Rig rig("tiny");
  std::mt19937_64 rng(77);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), sh(-45, 45);
  const uint32_t k = 4, n = k * rig.accLanes();
  for (int op = 0; op < hw::numAluOps(rig.cfg); ++op) {
    const bool shift = AluOp(op) == AluOp::Shr || AluOp(op) == AluOp::Rshr;
    std::vector<int32_t> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) a[i] = any(rng), b[i] = shift ? sh(rng) : any(rng);
    std::vector<int32_t> got = runAluTensor(rig, AluOp(op), a, b);
    for (uint32_t i = 0; i < n; ++i)
      ASSERT_EQ(got[i], isaAlu(AluOp(op), a[i], b[i]))
          << hw::aluOpName(AluOp(op)) << "(" << a[i] << ", " << b[i] << ")";
  }
}

// The loop nest of an ALU: dst/src indices from micro-op + o*factor_out +
// i*factor_in, and OUT updated for every written accumulator.
TEST(FsimAlu, LoopNestIndexingAndOutput) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  std::vector<int32_t> init(size_t(24) * lanes);
  for (size_t i = 0; i < init.size(); ++i) init[i] = int32_t(i * 1000 + 7);
  rig.writeAcc(0, init);
  // Two micro-ops; 2 x 3 iterations; dst = u.dst + 6o + i, src = u.src + 2o + 0i.
  std::vector<Uop> uops = {{0, 20, 0}, {3, 16, 0}};
  uint64_t uop = rig.uploadUops(uops);
  hw::LoopNest nest{0, 2, 2, 3, 6, 1, 2, 0};
  rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 2, 2), makeAlu(AluOp::Add, nest), makeFinish()});
  // Reference, straight from the isa.h loop.
  std::vector<int32_t> expected = init;
  for (uint32_t o = 0; o < 2; ++o)
    for (uint32_t i = 0; i < 3; ++i)
      for (const Uop& u : uops) {
        uint32_t d = u.dst + 6 * o + i, s = u.src + 2 * o;
        for (uint32_t l = 0; l < lanes; ++l)
          expected[d * lanes + l] = isaAlu(AluOp::Add, expected[d * lanes + l], expected[s * lanes + l]);
      }
  std::vector<int8_t> out = rig.readOut(0, 12);
  std::vector<int32_t> got = rig.readAcc(0, 12, 12);
  for (uint32_t e = 0; e < 12; ++e)
    for (uint32_t l = 0; l < lanes; ++l) {
      EXPECT_EQ(got[e * lanes + l], expected[e * lanes + l]) << "entry " << e << " lane " << l;
      // Entries the ALU wrote carry the low byte in OUT; the others were never written.
      EXPECT_EQ(out[e * lanes + l], lowByte(expected[e * lanes + l])) << "OUT entry " << e << " lane " << l;
    }
}

// ---------------------------------------------------------------------------
// GEMM and the OUT memory

// OUT holds the low byte of the accumulator (truncation, not saturation).
TEST(FsimGemmSemantics, OutIsLowByteOfAccumulator) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  const int32_t values[] = {0,   1,   -1,   127,        128,       -128,      -129,       255,
                            256, 300, -300, 0x12345680, INT32_MAX, INT32_MIN, 0x7fffff7f, -0x7fffff7f};
  std::vector<int32_t> acc(2 * lanes);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = values[i % std::size(values)];
  rig.writeAcc(0, acc);
  uint64_t uop = rig.uploadUops({{0, 0, 0}});
  rig.runStream(
      {makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), makeAluImm(AluOp::Add, {0, 1, 1, 2, 0, 1}, 0), makeFinish()});
  std::vector<int8_t> out = rig.readOut(0, 2);
  const int8_t hand[] = {0, 1, -1, 127, -128, -128, 127, -1, 0, 44, -44, -128, -1, 0, 127, -127};
  for (size_t i = 0; i < acc.size(); ++i) {
    EXPECT_EQ(out[i], hand[i % std::size(hand)]) << "accumulator " << acc[i];
    EXPECT_EQ(out[i], lowByte(acc[i]));
  }
}

struct GemmData {
  std::vector<int8_t> inp;  // entries of [batch][block_in]
  std::vector<int8_t> wgt;  // entries of [block_out][block_in]
};

GemmData randomGemmData(Rig& rig, std::mt19937_64& rng, uint32_t inp_entries, uint32_t wgt_entries, int lo = -128,
                        int hi = 127) {
  std::uniform_int_distribution<int> byte(lo, hi);
  GemmData d;
  d.inp.resize(size_t(inp_entries) * rig.entryBytes(Memory::Input));
  d.wgt.resize(size_t(wgt_entries) * rig.entryBytes(Memory::Weight));
  for (auto& v : d.inp) v = int8_t(byte(rng));
  for (auto& v : d.wgt) v = int8_t(byte(rng));
  return d;
}

// acc[dst][b][o] += sum_k inp[src][b][k] * wgt[wgt][o][k], 32-bit wrapping.
void referenceGemmStep(const hw::HwConfig& cfg, std::vector<int32_t>& acc, const GemmData& d, uint32_t dst,
                       uint32_t src, uint32_t wgt) {
  const uint32_t B = cfg.batch, BI = cfg.block_in, BO = cfg.block_out;
  for (uint32_t b = 0; b < B; ++b)
    for (uint32_t o = 0; o < BO; ++o) {
      int64_t sum = 0;
      for (uint32_t k = 0; k < BI; ++k)
        sum += int64_t(d.inp[(size_t(src) * B + b) * BI + k]) * d.wgt[(size_t(wgt) * BO + o) * BI + k];
      int32_t& a = acc[(size_t(dst) * B + b) * BO + o];
      a = wrap32(int64_t(a) + sum);
    }
}

// Random loop nests over random micro-ops, against the isa.h loop run on a
// reference accumulator; every accumulator bit is compared.
TEST(FsimGemmSemantics, RandomLoopNestsMatchIsaLoop) {
  Rig rig("tiny");
  std::mt19937_64 rng(2024);
  const uint32_t lanes = rig.accLanes();
  const uint32_t acc_used = 12;  // readAcc needs 5x this many entries
  const uint32_t n_inp = 40, n_wgt = 30;
  for (int trial = 0; trial < 25; ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    GemmData d = randomGemmData(rig, rng, n_inp, n_wgt);
    uint64_t inp = rig.upload(d.inp), wgt = rig.upload(d.wgt);
    std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
    std::vector<int32_t> acc(size_t(acc_used) * lanes);
    for (auto& v : acc) v = any(rng);
    rig.writeAcc(0, acc);

    std::uniform_int_distribution<uint32_t> r(0, 3);
    hw::Instruction g;
    std::vector<Uop> uops;
    for (;;) {
      hw::LoopNest l;
      l.iter_out = 1 + r(rng);
      l.iter_in = 1 + r(rng);
      l.dst_out = r(rng), l.dst_in = r(rng), l.src_out = r(rng) * 3, l.src_in = r(rng), l.wgt_out = r(rng) * 2,
      l.wgt_in = r(rng);
      const uint32_t n_uops = 1 + r(rng);
      uops.clear();
      for (uint32_t u = 0; u < n_uops; ++u)
        uops.push_back({std::uniform_int_distribution<uint32_t>(0, acc_used - 1)(rng),
                        std::uniform_int_distribution<uint32_t>(0, n_inp - 1)(rng),
                        std::uniform_int_distribution<uint32_t>(0, n_wgt - 1)(rng)});
      // Place the kernel at a random offset in the micro-op memory.
      const uint32_t base = r(rng) * 10;
      l.uop_begin = base;
      l.uop_end = base + n_uops;
      bool fits = true;
      for (const Uop& u : uops) {
        const uint32_t o = l.iter_out - 1, i = l.iter_in - 1;
        fits &= u.dst + o * l.dst_out + i * l.dst_in < acc_used;
        fits &= u.src + o * l.src_out + i * l.src_in < n_inp;
        fits &= u.wgt + o * l.wgt_out + i * l.wgt_in < n_wgt;
      }
      if (!fits) continue;
      g = makeGemm(l);
      std::vector<Uop> placed(base, Uop{});
      placed.insert(placed.end(), uops.begin(), uops.end());
      uops = placed;
      break;
    }
    uint64_t uop = rig.uploadUops(uops);
    hw::Instruction li = makeLoad(Memory::Input, 0, rig.entry(inp, Memory::Input), 1, n_inp, n_inp);
    hw::Instruction lw = makeLoad(Memory::Weight, 0, rig.entry(wgt, Memory::Weight), 1, n_wgt, n_wgt);
    lw.push_next = true;
    g.pop_prev = true;
    rig.runStream(
        {makeLoad(Memory::Uop, 0, uop / 4, 1, uint32_t(uops.size()), uint32_t(uops.size())), li, lw, g, makeFinish()});
    for (uint32_t o = 0; o < g.iter_out; ++o)
      for (uint32_t i = 0; i < g.iter_in; ++i)
        for (uint32_t u = g.uop_begin; u < g.uop_end; ++u)
          referenceGemmStep(rig.cfg, acc, d, uops[u].dst + o * g.dst_factor_out + i * g.dst_factor_in,
                            uops[u].src + o * g.src_factor_out + i * g.src_factor_in,
                            uops[u].wgt + o * g.wgt_factor_out + i * g.wgt_factor_in);
    ASSERT_EQ(rig.readAcc(0, acc_used, acc_used), acc);
    rig.dram.release(inp);
    rig.dram.release(wgt);
    rig.dram.release(uop);
  }
}

// GEMM reset writes zero (accumulator and OUT) to exactly the indexed entries,
// whatever was there, and a following GEMM accumulates from zero.
TEST(FsimGemmSemantics, ResetWritesZero) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  std::vector<int32_t> acc(size_t(12) * lanes);
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = int32_t(0x01010101u * uint32_t(i + 1)) | 0x40000000;
  rig.writeAcc(0, acc);
  // Reset entries 2,3 and 6,7 (uop dst 2, o*4 + i), leave the rest; refresh OUT of all entries first.
  uint64_t uop = rig.uploadUops({{0, 0, 0}, {2, 0, 0}});
  rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 2, 2), makeAluImm(AluOp::Add, {0, 1, 1, 12, 0, 1}, 0),
                 makeGemm({1, 2, 2, 2, 4, 1}, /*reset=*/true), makeFinish()});
  std::vector<int8_t> out = rig.readOut(0, 12);
  std::vector<int32_t> got = rig.readAcc(0, 12, 12);
  for (uint32_t e = 0; e < 12; ++e) {
    const bool reset = e == 2 || e == 3 || e == 6 || e == 7;
    for (uint32_t l = 0; l < lanes; ++l) {
      const int32_t want = reset ? 0 : acc[e * lanes + l];
      EXPECT_EQ(got[e * lanes + l], want) << "entry " << e;
      EXPECT_EQ(out[e * lanes + l], lowByte(want)) << "OUT entry " << e;
    }
  }
  // Reset then accumulate: the result is the product alone.
  std::mt19937_64 rng(9);
  GemmData d = randomGemmData(rig, rng, 1, 1);
  uint64_t inp = rig.upload(d.inp), wgt = rig.upload(d.wgt);
  rig.writeAcc(0, std::vector<int32_t>(lanes, 123456789));
  uint64_t uop2 = rig.uploadUops({{0, 0, 0}});
  hw::Instruction lw = makeLoad(Memory::Weight, 0, rig.entry(wgt, Memory::Weight), 1, 1, 1);
  lw.push_next = true;
  hw::Instruction g = makeGemm({0, 1, 1, 1});
  g.pop_prev = true;
  rig.runStream({makeLoad(Memory::Uop, 0, uop2 / 4, 1, 1, 1),
                 makeLoad(Memory::Input, 0, rig.entry(inp, Memory::Input), 1, 1, 1), lw, makeGemm({0, 1, 1, 1}, true),
                 g, makeFinish()});
  std::vector<int32_t> expected(lanes, 0);
  referenceGemmStep(rig.cfg, expected, d, 0, 0, 0);
  EXPECT_EQ(rig.readAcc(0, 1, 1), expected);
}

// The accumulator is 32 bits and wraps.
TEST(FsimGemmSemantics, AccumulationWrapsAt32Bits) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes(), BI = rig.cfg.block_in;
  // inp = 127 everywhere, wgt = 127 everywhere: each step adds 127*127*block_in.
  std::vector<int8_t> inp(rig.entryBytes(Memory::Input), 127), wgt(rig.entryBytes(Memory::Weight), 127);
  std::vector<int8_t> neg_wgt(rig.entryBytes(Memory::Weight), -128);
  uint64_t inp_addr = rig.upload(inp), wgt_addr = rig.upload(wgt), neg_addr = rig.upload(neg_wgt);
  std::vector<int32_t> acc(2 * lanes);
  for (uint32_t l = 0; l < lanes; ++l) acc[l] = INT32_MAX - 5, acc[lanes + l] = INT32_MIN + 5;
  rig.writeAcc(0, acc);
  uint64_t uop = rig.uploadUops({{0, 0, 0}, {1, 0, 1}});
  hw::Instruction lw = makeLoad(Memory::Weight, 0, rig.entry(wgt_addr, Memory::Weight), 1, 1, 1);
  hw::Instruction ln = makeLoad(Memory::Weight, 1, rig.entry(neg_addr, Memory::Weight), 1, 1, 1);
  ln.push_next = true;
  // 1000 steps: entry 0 gains 1000*127*127*BI, entry 1 loses 1000*127*128*BI.
  hw::Instruction g = makeGemm({0, 2, 10, 100});
  g.pop_prev = true;
  sim::ExecutionStats s =
      rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 2, 2),
                     makeLoad(Memory::Input, 0, rig.entry(inp_addr, Memory::Input), 1, 1, 1), lw, ln, g, makeFinish()});
  EXPECT_EQ(s.gemm_macs, uint64_t(2000) * rig.cfg.macsPerCycle());
  EXPECT_EQ(s.gemm_uop_iterations, 2000u);
  std::vector<int32_t> got = rig.readAcc(0, 2, 2);
  const int32_t up = wrap32(int64_t(INT32_MAX) - 5 + int64_t(1000) * 127 * 127 * BI);
  const int32_t down = wrap32(int64_t(INT32_MIN) + 5 - int64_t(1000) * 127 * 128 * BI);
  // Hand check for tiny (block_in 4): 2147483642 + 64516000 - 2^32 = -2082967654.
  if (BI == 4) {
    EXPECT_EQ(up, -2082967654);
  }
  for (uint32_t l = 0; l < lanes; ++l) {
    EXPECT_EQ(got[l], up);
    EXPECT_EQ(got[lanes + l], down);
  }
}

// ---------------------------------------------------------------------------
// LOAD

// Fills accumulator entries [0, n) with a non-zero pattern so that padding
// must actively write zeros.
void dirtyAcc(Rig& rig, uint32_t n) { rig.writeAcc(0, std::vector<int32_t>(size_t(n) * rig.accLanes(), 0x5a5a5a5a)); }

struct PaddedBlock {
  uint32_t y, x, stride;
  hw::Padding pad;
  uint32_t rows() const { return pad.top + y + pad.bottom; }
  uint32_t cols() const { return pad.left + x + pad.right; }
  // DRAM entry of padded position (r, c), or -1 for padding.
  int64_t source(uint32_t r, uint32_t c) const {
    if (r < pad.top || r >= pad.top + y || c < pad.left || c >= pad.left + x) return -1;
    return int64_t(r - pad.top) * stride + (c - pad.left);
  }
};

// Reads accumulator entries [0, n) for n <= 20 on tiny, 10 at a time, using
// entries [20, 60) as scratch.
std::vector<int32_t> readAcc20(Rig& rig, uint32_t n) {
  EXPECT_LE(n, 20u);
  std::vector<int32_t> all;
  for (uint32_t first = 0; first < n; first += 10) {
    std::vector<int32_t> part = rig.readAcc(first, std::min(10u, n - first), 20);
    all.insert(all.end(), part.begin(), part.end());
  }
  return all;
}

// Expected SRAM contents of a padded load: entry (r, c) is DRAM entry
// (r-top)*stride + (c-left) inside the block, zero in the padding.
template <class T, class U>
std::vector<U> paddedImage(const PaddedBlock& blk, const std::vector<T>& dram, uint32_t elems) {
  std::vector<U> out(size_t(blk.rows()) * blk.cols() * elems, U(0));
  for (uint32_t r = 0; r < blk.rows(); ++r)
    for (uint32_t c = 0; c < blk.cols(); ++c) {
      int64_t e = blk.source(r, c);
      if (e < 0) continue;
      for (uint32_t l = 0; l < elems; ++l)
        out[(size_t(r) * blk.cols() + c) * elems + l] = U(dram[size_t(e) * elems + l]);
    }
  return out;
}

void expectLoadStats(const sim::ExecutionStats& s, Memory m, const PaddedBlock& blk, uint32_t entry_bytes) {
  EXPECT_EQ(s.loads_by_memory[int(m)], 1u);
  EXPECT_EQ(s.dram_bytes_read[int(m)], uint64_t(blk.y) * blk.x * entry_bytes);
  EXPECT_EQ(s.padding_entries, uint64_t(blk.rows()) * blk.cols() - uint64_t(blk.y) * blk.x);
}

// LOAD ACC8: strided rows, padding on all four sides, sign extension to 32
// bits (observed in full).
TEST(FsimLoad, Acc8SignExtendsWithStrideAndPadding) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  ASSERT_EQ(rig.entryBytes(Memory::Acc8), lanes);
  const PaddedBlock blk{2, 2, 5, {1, 1, 2, 1}};  // 4 x 5 = 20 entries
  std::vector<int8_t> src(size_t(blk.y) * blk.stride * lanes);
  const int8_t edges[] = {-128, -1, 0, 1, 127, -127, 64, -64};
  for (size_t i = 0; i < src.size(); ++i) src[i] = i < 8 ? edges[i] : int8_t(i * 37 + 11);
  uint64_t addr = rig.upload(src);
  const uint32_t n = blk.rows() * blk.cols();
  dirtyAcc(rig, n);
  sim::ExecutionStats s = rig.runStream(
      {makeLoad(Memory::Acc8, 0, rig.entry(addr, Memory::Acc8), blk.y, blk.x, blk.stride, blk.pad), makeFinish()});
  expectLoadStats(s, Memory::Acc8, blk, lanes);
  std::vector<int32_t> got = readAcc20(rig, n);
  EXPECT_EQ(got, (paddedImage<int8_t, int32_t>(blk, src, lanes)));
  // Hand check of the first data entry (padded position (1, 2)): -128 stays -128, -1 stays -1.
  const size_t first = (size_t(1) * blk.cols() + 2) * lanes;
  EXPECT_EQ(got[first + 0], -128);
  EXPECT_EQ(got[first + 1], -1);
  EXPECT_EQ(got[first + 4], 127);
}

// LOAD ACC: 32-bit little-endian values, strided, padded on all sides.
TEST(FsimLoad, AccWithStrideAndPadding) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  const PaddedBlock blk{2, 2, 3, {1, 2, 1, 1}};  // 5 x 4 = 20 entries
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::vector<int32_t> src(size_t(blk.y) * blk.stride * lanes);
  for (auto& v : src) v = any(rng);
  src[0] = INT32_MIN, src[1] = INT32_MAX, src[2] = -1;
  uint64_t addr = rig.upload(src);
  const uint32_t n = blk.rows() * blk.cols();
  dirtyAcc(rig, n);
  sim::ExecutionStats s = rig.runStream(
      {makeLoad(Memory::Acc, 0, rig.entry(addr, Memory::Acc), blk.y, blk.x, blk.stride, blk.pad), makeFinish()});
  expectLoadStats(s, Memory::Acc, blk, lanes * 4);
  EXPECT_EQ(readAcc20(rig, n), (paddedImage<int32_t, int32_t>(blk, src, lanes)));
}

// LOAD INP with stride and padding at a non-zero SRAM base, observed through
// GEMM with an identity weight (acc[b][o] = inp[b][o] for o < block_in).
TEST(FsimLoad, InputWithStrideAndPadding) {
  Rig rig("tiny");
  const hw::HwConfig& cfg = rig.cfg;
  const uint32_t in_elems = cfg.batch * cfg.block_in, lanes = rig.accLanes();
  const PaddedBlock blk{3, 2, 4, {2, 1, 1, 3}};  // 6 x 6 = 36 entries
  const uint32_t n = blk.rows() * blk.cols(), base = 7;
  std::mt19937_64 rng(4);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> src(size_t(blk.y) * blk.stride * in_elems);
  for (auto& v : src) v = int8_t(byte(rng));
  std::vector<int8_t> dirt(size_t(n + base) * in_elems, 99);
  std::vector<int8_t> identity(rig.entryBytes(Memory::Weight), 0);
  for (uint32_t o = 0; o < std::min(cfg.block_in, cfg.block_out); ++o) identity[o * cfg.block_in + o] = 1;
  uint64_t src_addr = rig.upload(src), dirt_addr = rig.upload(dirt), w_addr = rig.upload(identity);
  uint64_t uop = rig.uploadUops({{0, base, 0}});

  hw::Instruction dirty = makeLoad(Memory::Input, 0, rig.entry(dirt_addr, Memory::Input), 1, n + base, n + base);
  hw::Instruction ld =
      makeLoad(Memory::Input, base, rig.entry(src_addr, Memory::Input), blk.y, blk.x, blk.stride, blk.pad);
  hw::Instruction lw = makeLoad(Memory::Weight, 0, rig.entry(w_addr, Memory::Weight), 1, 1, 1);
  lw.push_next = true;
  hw::LoopNest each{0, 1, 1, n, 0, 1, 0, 1};
  hw::Instruction g = makeGemm(each);
  g.pop_prev = true;
  sim::ExecutionStats s =
      rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), dirty, ld, lw, makeGemm(each, true), g, makeFinish()});
  EXPECT_EQ(s.loads_by_memory[int(Memory::Input)], 2u);
  EXPECT_EQ(s.padding_entries, uint64_t(n) - blk.y * blk.x);
  std::vector<int8_t> image = paddedImage<int8_t, int8_t>(blk, src, in_elems);
  std::vector<int8_t> out = rig.readOut(0, n);
  for (uint32_t e = 0; e < n; ++e)
    for (uint32_t b = 0; b < cfg.batch; ++b)
      for (uint32_t o = 0; o < cfg.block_out; ++o) {
        const int8_t want = o < cfg.block_in ? image[(size_t(e) * cfg.batch + b) * cfg.block_in + o] : 0;
        ASSERT_EQ(out[(size_t(e) * cfg.batch + b) * cfg.block_out + o], want)
            << "entry " << e << " (row " << e / blk.cols() << ", col " << e % blk.cols() << ") batch " << b << " lane "
            << o;
      }
  (void)lanes;
}

// LOAD WGT with stride and padding, observed through GEMM with one-hot input
// rows: input entry j has inp[b][k] = (k == j*batch + b), so acc[2e+j][b][o] =
// wgt[e][o][j*batch + b].
TEST(FsimLoad, WeightWithStrideAndPadding) {
  Rig rig("tiny");
  const hw::HwConfig& cfg = rig.cfg;
  const uint32_t B = cfg.batch, BI = cfg.block_in, BO = cfg.block_out;
  const uint32_t J = (BI + B - 1) / B;
  const PaddedBlock blk{2, 3, 4, {1, 1, 1, 2}};  // 4 x 6 = 24 entries
  const uint32_t n = blk.rows() * blk.cols();
  ASSERT_LE(n * J, cfg.depth(Memory::Acc));
  std::mt19937_64 rng(8);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> src(size_t(blk.y) * blk.stride * BO * BI);
  for (auto& v : src) v = int8_t(byte(rng));
  std::vector<int8_t> dirt(size_t(n) * BO * BI, -77);
  std::vector<int8_t> onehot(size_t(J) * B * BI, 0);
  for (uint32_t j = 0; j < J; ++j)
    for (uint32_t b = 0; b < B; ++b)
      if (j * B + b < BI) onehot[(size_t(j) * B + b) * BI + j * B + b] = 1;
  uint64_t src_addr = rig.upload(src), dirt_addr = rig.upload(dirt), in_addr = rig.upload(onehot);
  std::vector<Uop> uops;
  for (uint32_t j = 0; j < J; ++j) uops.push_back({j, j, 0});
  uint64_t uop = rig.uploadUops(uops);
  hw::Instruction dirty = makeLoad(Memory::Weight, 0, rig.entry(dirt_addr, Memory::Weight), 1, n, n);
  hw::Instruction lw =
      makeLoad(Memory::Weight, 0, rig.entry(src_addr, Memory::Weight), blk.y, blk.x, blk.stride, blk.pad);
  lw.push_next = true;
  hw::LoopNest nest{0, J, 1, n, 0, J, 0, 0, 0, 1};
  hw::Instruction g = makeGemm(nest);
  g.pop_prev = true;
  sim::ExecutionStats s = rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, J, J),
                                         makeLoad(Memory::Input, 0, rig.entry(in_addr, Memory::Input), 1, J, J), dirty,
                                         lw, makeGemm(nest, true), g, makeFinish()});
  EXPECT_EQ(s.dram_bytes_read[int(Memory::Weight)], uint64_t(n + blk.y * blk.x) * BO * BI);
  std::vector<int8_t> image = paddedImage<int8_t, int8_t>(blk, src, BO * BI);
  std::vector<int8_t> out = rig.readOut(0, n * J);
  for (uint32_t e = 0; e < n; ++e)
    for (uint32_t j = 0; j < J; ++j)
      for (uint32_t b = 0; b < B && j * B + b < BI; ++b)
        for (uint32_t o = 0; o < BO; ++o)
          ASSERT_EQ(out[((size_t(e) * J + j) * B + b) * BO + o], image[(size_t(e) * BO + o) * BI + j * B + b])
              << "weight entry " << e << " row " << o << " column " << j * B + b;
}

// LOAD UOP with a stride: DRAM micro-ops {10..15} as 2 rows of 2, stride 3,
// land as {10, 11, 13, 14}; observed by ALU ADD 1 over those micro-ops.
TEST(FsimLoad, UopWithStride) {
  Rig rig("tiny");
  const uint32_t lanes = rig.accLanes();
  std::vector<Uop> dram_uops;
  for (uint32_t d = 10; d < 16; ++d) dram_uops.push_back({d, 0, 0});
  uint64_t uop = rig.uploadUops(dram_uops);
  rig.writeAcc(0, std::vector<int32_t>(size_t(16) * lanes, 0));
  rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 2, 2, 3), makeAluImm(AluOp::Add, {0, 4, 1, 1}, 1), makeFinish()});
  std::vector<int8_t> out = rig.readOut(10, 6);
  const int8_t expected[] = {1, 1, 0, 1, 1, 0};
  for (uint32_t e = 0; e < 6; ++e)
    for (uint32_t l = 0; l < lanes; ++l) EXPECT_EQ(out[e * lanes + l], expected[e]) << "acc entry " << 10 + e;
}

// ---------------------------------------------------------------------------
// SETREQ and the GEMM flag requant (extension gemm_requant), from docs/isa.md

// The shipped config `name` with gemm_requant (its builtin JSON with the
// extension added, unless it has it already), written to a file for Rig.
std::string gemmRequantConfigFile(const std::string& name) {
  std::string json = *hw::builtinConfigText(name);
  if (!hw::loadConfig(name).gemm_requant) {
    const std::string key = "\"extensions\": {";
    const size_t at = json.find(key);
    EXPECT_NE(at, std::string::npos) << name << " has no extensions object";
    json.insert(at + key.size(), "\"gemm_requant\": true, ");
  }
  const std::string path = ::testing::TempDir() + "vdla_fsim_" + name + "_gemm_requant.json";
  std::ofstream(path) << json;
  return path;
}

Instruction makeSetReq(AluOp op, uint32_t acc_index, int32_t imm) {
  Instruction i;
  i.opcode = hw::Opcode::SetReq;
  i.alu_op = op;
  i.sram_base = acc_index;
  i.imm = imm;
  return i;
}

// Everything a requantising GEMM test needs on chip: INP and WGT from random
// data (loaded with a token for the GEMM), micro-ops, accumulators.
struct RequantRig {
  Rig rig;
  GemmData d;
  explicit RequantRig(const std::string& name, std::mt19937_64& rng, uint32_t n_inp = 8, uint32_t n_wgt = 8)
      : rig(gemmRequantConfigFile(name)), d(randomGemmData(rig, rng, n_inp, n_wgt)) {
    EXPECT_TRUE(rig.cfg.gemm_requant);
  }
  // LOAD UOP, LOAD INP, LOAD WGT (push_next), then `compute` (the first
  // GEMM or DWGEMM with pop_prev on it), FINISH.
  void run(const std::vector<Uop>& uops, std::vector<Instruction> compute) {
    const uint64_t inp = rig.upload(d.inp), wgt = rig.upload(d.wgt), uop = rig.uploadUops(uops);
    const uint32_t n_inp = uint32_t(d.inp.size() / rig.entryBytes(Memory::Input));
    const uint32_t n_wgt = uint32_t(d.wgt.size() / rig.entryBytes(Memory::Weight));
    std::vector<Instruction> prog = {makeLoad(Memory::Uop, 0, uop / 4, 1, uint32_t(uops.size()), uint32_t(uops.size())),
                                     makeLoad(Memory::Input, 0, rig.entry(inp, Memory::Input), 1, n_inp, n_inp),
                                     makeLoad(Memory::Weight, 0, rig.entry(wgt, Memory::Weight), 1, n_wgt, n_wgt)};
    prog.back().push_next = true;
    for (Instruction& i : compute)
      if (i.opcode == hw::Opcode::Gemm || i.opcode == hw::Opcode::DwGemm) {
        i.pop_prev = true;
        break;
      }
    prog.insert(prog.end(), compute.begin(), compute.end());
    prog.push_back(makeFinish());
    rig.runStream(prog);
    rig.dram.release(inp);
    rig.dram.release(wgt);
    rig.dram.release(uop);
  }
  // sum_k inp[src][b][k] * wgt[w][o][k] for lane (b, o).
  int64_t dot(uint32_t src, uint32_t w, uint32_t lane) const {
    const uint32_t BI = rig.cfg.block_in, BO = rig.cfg.block_out, b = lane / BO, o = lane % BO;
    int64_t sum = 0;
    for (uint32_t k = 0; k < BI; ++k)
      sum += int64_t(d.inp[(size_t(src) * rig.cfg.batch + b) * BI + k]) * d.wgt[(size_t(w) * BO + o) * BI + k];
    return sum;
  }
};

// One requantising GEMM over three micro-ops, two into one dst (a reduction)
// and one into another, for two inner iterations: the iteration's first
// micro-op starts from the bias (whatever ACC[dst] held), the second
// accumulates onto it, the third onto its own ACC entry; every one writes
// REQ(sum, operand, imm) to OUT and the sum to ACC.
TEST(FsimGemmRequant, StartsEachIterationFromTheBiasAndWritesTheRequantisedSum) {
  std::mt19937_64 rng(606);
  RequantRig r("pynq", rng);
  const uint32_t lanes = r.rig.accLanes();
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), mult(1 << 8, 1 << 12), shift(18, 22),
      bias(-(1 << 16), 1 << 16);
  std::vector<int32_t> acc(size_t(4) * lanes), param(2 * size_t(lanes));
  for (auto& v : acc) v = any(rng) >> 12;
  for (uint32_t l = 0; l < lanes; ++l) param[l] = mult(rng) * 64 + shift(rng), param[lanes + l] = bias(rng);
  param[1] = -param[1];  // a negative multiplier in one lane
  r.rig.writeAcc(0, acc);
  r.rig.writeAcc(8, param);
  const int32_t bounds = int32_t(int16_t(uint16_t(0x5a9c)));  // [-100, 90]
  // u0, u1 into dst 0; u2 into dst 1; per iteration dst += 2, src and wgt += 3.
  const std::vector<Uop> uops = {{0, 0, 0}, {0, 1, 1}, {1, 2, 2}};
  Instruction g = makeGemm({0, 3, 1, 2, 0, 2, 0, 3, 0, 3});
  g.requant = true;
  r.run(uops, {makeSetReq(AluOp::Req, 8, bounds), g});
  std::vector<int8_t> want_out(size_t(4) * lanes);
  for (uint32_t i = 0; i < 2; ++i)
    for (uint32_t u = 0; u < 3; ++u) {
      const uint32_t dst = uops[u].dst + 2 * i, src = uops[u].src + 3 * i, w = uops[u].wgt + 3 * i;
      for (uint32_t l = 0; l < lanes; ++l) {
        int32_t& a = acc[size_t(dst) * lanes + l];
        a = wrap32((u == 0 ? int64_t(param[lanes + l]) : int64_t(a)) + r.dot(src, w, l));
        want_out[size_t(dst) * lanes + l] = lowByte(isaAlu(AluOp::Req, a, param[l], bounds));
      }
    }
  const std::vector<int8_t> out = r.rig.readOut(0, 4);
  int interior = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out[i], want_out[i]) << "OUT element " << i;
    interior += out[i] > -100 && out[i] < 90;
  }
  EXPECT_GT(interior, 8);  // the operands give unsaturated results
  EXPECT_EQ(r.rig.readAcc(0, 4, 12), acc);
}

// A requantising DWGEMM: each output's micro-ops (two kernel rows here) are
// one reduction; the first micro-op's writes start from the bias (whatever
// ACC[dst] held) and every write sets OUT to REQ of the sum; a second
// SETREQ (other bounds) applies to the next DWGEMM. pynq: five taps of 16
// lanes.
TEST(FsimGemmRequant, DwgemmStartsFromTheBiasAndWritesTheRequantisedSum) {
  std::mt19937_64 rng(1010);
  RequantRig r("pynq", rng, 12, 4);
  const hw::HwConfig& cfg = r.rig.cfg;
  ASSERT_GT(cfg.depthwise_taps, 1u);
  const uint32_t lanes = r.rig.accLanes(), BI = cfg.block_in, BO = cfg.block_out, T = cfg.depthwise_taps;
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), mult(1 << 8, 1 << 12), shift(14, 18),
      bias(-(1 << 12), 1 << 12);
  std::vector<int32_t> acc(size_t(8) * lanes), param(2 * size_t(lanes));
  for (auto& v : acc) v = any(rng) >> 14;
  for (uint32_t l = 0; l < lanes; ++l) param[l] = mult(rng) * 64 + shift(rng), param[lanes + l] = bias(rng);
  r.rig.writeAcc(0, acc);
  r.rig.writeAcc(10, param);
  const int32_t bounds = int32_t(int16_t(uint16_t(0x7f80)));
  // Kernel rows: inputs from 0 and from 4, weight rows 0 and 1; outputs
  // 0..2 (taps 2, stride 1, four inputs per run); the second DWGEMM the same
  // into outputs 4..6 under the second SETREQ.
  const std::vector<Uop> uops = {{0, 0, 0}, {0, 4, 1}, {4, 0, 2}, {4, 4, 3}};
  hw::LoopNest l{0, 2, 1, 4, 0, 1, 0, 1, 0, 0};
  Instruction dw = makeDwGemm(l, 2, 1);
  dw.requant = true;
  l.uop_begin = 2;
  l.uop_end = 4;
  Instruction dw2 = makeDwGemm(l, 2, 1);
  dw2.requant = true;
  const int32_t narrow = int32_t(int16_t(uint16_t(0x3cd8)));  // [-40, 60]
  r.run(uops, {makeSetReq(AluOp::Req, 10, bounds), dw, makeSetReq(AluOp::Req, 10, narrow), dw2});
  // The window's sum for output j of a run from input `src` with weight row w.
  auto window = [&](uint32_t src, uint32_t w, uint32_t j, uint32_t lane) {
    const uint32_t b = lane / BO, c = lane % BO, n = 1 + j;
    int64_t sum = 0;
    for (uint32_t t = 0; t < T && t <= n; ++t)
      sum += int64_t(r.d.inp[(size_t(src + n - t) * cfg.batch + b) * BI + c]) * r.d.wgt[(size_t(w) * BO + t) * BI + c];
    return sum;
  };
  std::vector<int8_t> want_out(size_t(7) * lanes, 0);
  for (uint32_t u = 0; u < 4; ++u)
    for (uint32_t j = 0; j < 3; ++j)
      for (uint32_t l2 = 0; l2 < lanes; ++l2) {
        int32_t& a = acc[size_t(uops[u].dst + j) * lanes + l2];
        const bool first = u % 2 == 0;
        a = wrap32((first ? int64_t(param[lanes + l2]) : int64_t(a)) + window(uops[u].src, uops[u].wgt, j, l2));
        want_out[size_t(uops[u].dst + j) * lanes + l2] =
            lowByte(isaAlu(AluOp::Req, a, param[l2], u >= 2 ? narrow : bounds));
      }
  const std::vector<int8_t> out = r.rig.readOut(0, 7);
  int interior = 0;
  for (uint32_t e : {0u, 1u, 2u, 4u, 5u, 6u})
    for (uint32_t l2 = 0; l2 < lanes; ++l2) {
      const size_t i = size_t(e) * lanes + l2;
      ASSERT_EQ(out[i], want_out[i]) << "OUT entry " << e << " lane " << l2;
      interior += out[i] > -128 && out[i] < 127;
    }
  EXPECT_GT(interior, 8);  // the operands give unsaturated results
  const std::vector<int32_t> got = r.rig.readAcc(0, 7, 20);
  for (uint32_t e : {0u, 1u, 2u, 4u, 5u, 6u})
    for (uint32_t l2 = 0; l2 < lanes; ++l2)
      EXPECT_EQ(got[size_t(e) * lanes + l2], acc[size_t(e) * lanes + l2]) << "ACC entry " << e << " lane " << l2;
}

// SETREQ copies its entries when it executes: writes to them afterwards do
// not change the state; a second SETREQ replaces it. FREQ on zcu104.
TEST(FsimGemmRequant, SetreqCopiesItsEntriesWhenItExecutes) {
  std::mt19937_64 rng(707);
  RequantRig r("zcu104", rng);
  ASSERT_TRUE(r.rig.cfg.float_requant);
  const uint32_t lanes = r.rig.accLanes();
  std::uniform_real_distribution<float> scale(1.0f / 4096, 1.0f / 256);
  std::uniform_int_distribution<int32_t> bias(-(1 << 15), 1 << 15);
  std::vector<int32_t> first(2 * size_t(lanes)), second(2 * size_t(lanes));
  for (uint32_t l = 0; l < lanes; ++l) {
    float f = scale(rng), g = scale(rng);
    std::memcpy(&first[l], &f, 4);
    std::memcpy(&second[l], &g, 4);
    first[lanes + l] = bias(rng);
    second[lanes + l] = bias(rng);
  }
  r.rig.writeAcc(4, first);
  const uint64_t later = r.rig.upload(second);
  Instruction overwrite = makeLoad(Memory::Acc, 4, r.rig.entry(later, Memory::Acc), 1, 2, 2);
  Instruction g = makeGemm({0, 1, 1, 1});  // dst 0 from src 0, wgt 0
  g.requant = true;
  Instruction g2 = makeGemm({1, 2, 1, 1});  // dst 1 from src 1, wgt 1
  g2.requant = true;
  // SETREQ FREQ (zero point 3), overwrite its entries, GEMM into 0 (the
  // first state); SETREQ REQ from the new entries, GEMM into 1.
  r.run({{0, 0, 0}, {1, 1, 1}},
        {makeSetReq(AluOp::FReq, 4, 3), overwrite, g, makeSetReq(AluOp::Req, 4, int32_t(0x7f00)), g2});
  r.rig.dram.release(later);
  const std::vector<int8_t> out = r.rig.readOut(0, 2);
  const std::vector<int32_t> acc = r.rig.readAcc(0, 2, 8);
  for (uint32_t l = 0; l < lanes; ++l) {
    const int32_t a0 = wrap32(first[lanes + l] + r.dot(0, 0, l)), a1 = wrap32(second[lanes + l] + r.dot(1, 1, l));
    EXPECT_EQ(acc[l], a0) << "lane " << l;
    EXPECT_EQ(acc[lanes + l], a1) << "lane " << l;
    EXPECT_EQ(out[l], lowByte(isaAlu(AluOp::FReq, a0, first[l], 3))) << "lane " << l;
    EXPECT_EQ(out[lanes + l], lowByte(isaAlu(AluOp::Req, a1, second[l], 0x7f00))) << "lane " << l;
  }
}

// After reset the state is REQ with a zero operand, bias and immediate: a
// requantising GEMM on a fresh simulator leaves the bare sum in ACC and
// REQ(sum, 0, 0) = CLIP(0) to [0, 0] = 0 in OUT. A GEMM without the flag
// is unaffected by a SETREQ.
TEST(FsimGemmRequant, StateAfterResetAndPlainGemms) {
  std::mt19937_64 rng(808);
  RequantRig r("ultra96", rng);
  const uint32_t lanes = r.rig.accLanes();
  std::vector<int32_t> acc(size_t(2) * lanes, 77), param(2 * size_t(lanes), 1 << 20);
  r.rig.writeAcc(0, acc);
  r.rig.writeAcc(4, param);
  Instruction g = makeGemm({0, 1, 1, 1});
  g.requant = true;
  Instruction plain = makeGemm({1, 2, 1, 1});
  r.run({{0, 0, 0}, {1, 1, 1}}, {g, makeSetReq(AluOp::Req, 4, 0x7f80), plain});
  const std::vector<int8_t> out = r.rig.readOut(0, 2);
  const std::vector<int32_t> got = r.rig.readAcc(0, 2, 8);
  for (uint32_t l = 0; l < lanes; ++l) {
    EXPECT_EQ(got[l], wrap32(r.dot(0, 0, l))) << "lane " << l;
    EXPECT_EQ(out[l], 0) << "lane " << l;
    const int32_t a1 = wrap32(77 + r.dot(1, 1, l));
    EXPECT_EQ(got[lanes + l], a1) << "lane " << l;
    EXPECT_EQ(out[lanes + l], lowByte(a1)) << "lane " << l;
  }
}

TEST(FsimGemmRequant, RefusedWithoutTheExtensionAndWithReset) {
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  const hw::HwConfig with = hw::loadConfig(gemmRequantConfigFile("pynq"));
  auto why = [](const hw::HwConfig& cfg, const Instruction& i) -> std::string {
    try {
      hw::IsaLayout(cfg).encode(i);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  Instruction g = makeGemm({0, 1, 1, 1});
  g.requant = true;
  EXPECT_EQ(why(with, g), "");
  EXPECT_EQ(why(with, makeSetReq(AluOp::Req, 2, 5)), "");
  if (!pynq.gemm_requant) {
    EXPECT_THAT(why(pynq, g), ::testing::HasSubstr("gemm_requant"));
    EXPECT_THAT(why(pynq, makeSetReq(AluOp::Req, 2, 5)), ::testing::HasSubstr("gemm_requant"));
  }
  g.reset = true;
  EXPECT_THAT(why(with, g), ::testing::HasSubstr("requant and reset"));
  EXPECT_THAT(why(with, makeSetReq(AluOp::Max, 2, 5)), ::testing::HasSubstr("must be REQ or FREQ"));
  EXPECT_THAT(why(with, makeSetReq(AluOp::FReq, 2, 5)), ::testing::HasSubstr("float_requant"));  // pynq has no FREQ
}

// ---------------------------------------------------------------------------
// State across runs

TEST(FsimState, SramPersistsBetweenRuns) {
  Rig rig("tiny");
  const hw::HwConfig& cfg = rig.cfg;
  std::mt19937_64 rng(31);
  GemmData d = randomGemmData(rig, rng, 3, 2, -20, 20);
  uint64_t inp = rig.upload(d.inp), wgt = rig.upload(d.wgt);
  // Kernel: acc[e] = inp[e] * wgt[1] for e < 3.
  uint64_t uop = rig.uploadUops({{0, 0, 1}});
  // Run 1: only loads.
  sim::ExecutionStats s1 = rig.runStream(
      {makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), makeLoad(Memory::Input, 0, rig.entry(inp, Memory::Input), 1, 3, 3),
       makeLoad(Memory::Weight, 0, rig.entry(wgt, Memory::Weight), 1, 2, 2), makeFinish()});
  EXPECT_EQ(s1.gemm_macs, 0u);
  rig.dram.release(inp);
  rig.dram.release(wgt);
  rig.dram.release(uop);
  // Run 2: compute and store from what run 1 left on chip (the DRAM sources are gone).
  const uint64_t out_bytes = 3 * rig.entryBytes(Memory::Output);
  uint64_t out = rig.dram.allocate(out_bytes);
  hw::LoopNest nest{0, 1, 1, 3, 0, 1, 0, 1};
  hw::Instruction g = makeGemm(nest);
  g.push_next = true;
  hw::Instruction st = makeStore(0, rig.entry(out, Memory::Output), 1, 3, 3);
  st.pop_prev = true;
  sim::ExecutionStats s2 = rig.runStream({makeGemm(nest, true), g, st, makeFinish()});
  EXPECT_EQ(s2.gemm_macs, 3 * cfg.macsPerCycle());
  EXPECT_EQ(s2.dram_bytes_read[int(Memory::Input)] + s2.dram_bytes_read[int(Memory::Weight)] +
                s2.dram_bytes_read[int(Memory::Uop)],
            0u);
  std::vector<int32_t> acc(size_t(3) * rig.accLanes(), 0);
  for (uint32_t e = 0; e < 3; ++e) referenceGemmStep(cfg, acc, d, e, e, 1);
  std::vector<int8_t> want(acc.size());
  for (size_t i = 0; i < acc.size(); ++i) want[i] = lowByte(acc[i]);
  EXPECT_EQ(rig.download<int8_t>(out, out_bytes), want);
  // Run 3: accumulate again without reset: the accumulators persisted too.
  sim::ExecutionStats s3 = rig.runStream({g, st, makeFinish()});
  (void)s3;
  for (size_t i = 0; i < acc.size(); ++i) want[i] = lowByte(wrap32(int64_t(acc[i]) * 2));
  EXPECT_EQ(rig.download<int8_t>(out, out_bytes), want);
  // Run 4: OUT persisted: a bare STORE into a fresh buffer sees it.
  EXPECT_EQ(rig.readOut(0, 3), want);
}

// A failed run does not poison the simulator: the next program runs normally.
TEST(FsimState, RunAfterAnErrorWorks) {
  Rig rig("tiny");
  hw::Instruction bad = makeGemm({0, 1, 1, 1});
  bad.pop_prev = true;  // nobody pushes: deadlock
  EXPECT_THROW(rig.runStream({bad, makeFinish()}), Error);
  rig.writeAcc(0, std::vector<int32_t>(rig.accLanes(), 300));
  uint64_t uop = rig.uploadUops({{0, 0, 0}});
  rig.runStream({makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), makeAluImm(AluOp::Add, {0, 1, 1, 1}, 1), makeFinish()});
  EXPECT_EQ(rig.readOut(0, 1), std::vector<int8_t>(rig.accLanes(), lowByte(301)));
}

// The same program run from a decoded vector and from DRAM gives the same result.
TEST(FsimState, DecodedAndFetchedProgramsAgree) {
  Rig a("tiny"), b("tiny");
  std::vector<int32_t> acc(size_t(2) * a.accLanes());
  for (size_t i = 0; i < acc.size(); ++i) acc[i] = int32_t(i * 12345 - 99999);
  a.writeAcc(0, acc);
  b.writeAcc(0, acc);
  uint64_t ua = a.uploadUops({{0, 1, 0}}), ub = b.uploadUops({{0, 1, 0}});
  auto prog = [](uint64_t u) {
    return std::vector<Instruction>{makeLoad(Memory::Uop, 0, u / 4, 1, 1, 1), makeAlu(AluOp::Mul, {0, 1, 1, 1}),
                                    makeAluImm(AluOp::Rshr, {0, 1, 1, 1}, 3), makeFinish()};
  };
  sim::ExecutionStats sa = a.fsim.run(prog(ua));
  sim::ExecutionStats sb = b.runStream(prog(ub));
  EXPECT_EQ(sa.toJson(), sb.toJson());
  EXPECT_EQ(a.readAcc(0, 1, 2), b.readAcc(0, 1, 2));
}

}  // namespace
}  // namespace vdla::simtest
