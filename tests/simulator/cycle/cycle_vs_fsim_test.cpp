// Directed ISA corners on the cycle device, compared bit for bit against fsim.
#include <cstdio>
#include <cstring>

#include "cycle_test_util.h"
#include "vdla/hw/float_requant.h"

namespace vdla::cycletest {
namespace {

using hw::LoopNest;
using hw::Padding;

// Copies ACC entries [0, n) to OUT through ALU ADD #0 and stores them.
void storeAccThroughOut(DualRig& r, std::vector<Instruction>& p, uint32_t n, uint64_t uop_addr_entry) {
  p.push_back(hw::makeLoad(Memory::Uop, 0, uop_addr_entry, 1, 1, 1));
  p.push_back(hw::makeAluImm(AluOp::Add, LoopNest{0, 1, 1, n, 0, 1, 0, 1}, 0));
  p.back().push_next = true;
  uint64_t out = r.buffer(size_t(n) * r.cfg.entryBytes(Memory::Output));
  Instruction st = hw::makeStore(0, r.entryOf(out, Memory::Output), 1, n, n);
  st.pop_prev = true;
  p.push_back(st);
}

class PaddingTest : public ::testing::TestWithParam<std::tuple<std::string, Memory, int>> {};

TEST_P(PaddingTest, EachSideMatchesFsim) {
  const auto& [config, mem, side] = GetParam();
  DualRig r(config);
  Padding pad;
  (side == 0 ? pad.top : side == 1 ? pad.bottom : side == 2 ? pad.left : pad.right) = 2;
  const uint32_t y = 3, x = 2, stride = 5;
  uint64_t src = r.buffer(size_t(y) * stride * r.cfg.entryBytes(mem));
  uint64_t uop = r.uops({Uop{0, 0, 0}});
  std::vector<Instruction> p;
  const uint32_t rows = y + pad.top + pad.bottom, cols = x + pad.left + pad.right;
  if (mem == Memory::Acc || mem == Memory::Acc8) {
    p.push_back(hw::makeLoad(mem, 1, r.entryOf(src, mem), y, x, stride, pad));
    storeAccThroughOut(r, p, 1 + rows * cols, r.entryOf(uop, Memory::Uop));
  } else {
    // INP or WGT: GEMM every loaded entry against a random other operand.
    const Memory other = mem == Memory::Input ? Memory::Weight : Memory::Input;
    uint64_t other_src = r.buffer(size_t(rows * cols) * r.cfg.entryBytes(other));
    Instruction l = hw::makeLoad(mem, 0, r.entryOf(src, mem), y, x, stride, pad);
    Instruction lo = hw::makeLoad(other, 0, r.entryOf(other_src, other), 1, rows * cols, rows * cols);
    lo.push_next = true;
    p.push_back(l);
    p.push_back(lo);
    p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 1, 1));
    Instruction reset = hw::makeGemm(LoopNest{0, 1, 1, rows * cols, 0, 1}, true);
    reset.pop_prev = true;
    p.push_back(reset);
    Instruction g = hw::makeGemm(LoopNest{0, 1, 1, rows * cols, 0, 1, 0, 1, 0, 1});
    g.push_next = true;
    p.push_back(g);
    uint64_t out = r.buffer(size_t(rows * cols) * r.cfg.entryBytes(Memory::Output));
    Instruction st = hw::makeStore(0, r.entryOf(out, Memory::Output), 1, rows * cols, rows * cols);
    st.pop_prev = true;
    p.push_back(st);
  }
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
}

INSTANTIATE_TEST_SUITE_P(AllMemories, PaddingTest,
                         ::testing::Combine(::testing::Values("tiny", "pynq"),
                                            ::testing::Values(Memory::Input, Memory::Weight, Memory::Acc, Memory::Acc8),
                                            ::testing::Values(0, 1, 2, 3)));

class CornerTest : public ::testing::TestWithParam<std::string> {};

// Consecutive micro-ops on the same accumulator row: the read-modify-write
// hazard of the pipeline, with reset then several accumulations.
TEST_P(CornerTest, GemmResetAccumulateAndAccHazards) {
  DualRig r(GetParam());
  uint64_t inp = r.buffer(4 * r.cfg.entryBytes(Memory::Input));
  uint64_t wgt = r.buffer(4 * r.cfg.entryBytes(Memory::Weight));
  uint64_t uop = r.uops({{0, 0, 0}, {0, 1, 1}, {0, 2, 3}, {1, 3, 2}, {1, 0, 0}, {0, 1, 2}});
  std::vector<Instruction> p;
  Instruction li = hw::makeLoad(Memory::Input, 0, r.entryOf(inp, Memory::Input), 1, 4, 4);
  Instruction lw = hw::makeLoad(Memory::Weight, 0, r.entryOf(wgt, Memory::Weight), 1, 4, 4);
  lw.push_next = true;
  p.push_back(li);
  p.push_back(lw);
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 6, 6));
  Instruction reset = hw::makeGemm(LoopNest{0, 2, 1, 1}, true);
  reset.pop_prev = true;
  p.push_back(reset);
  p.push_back(hw::makeGemm(LoopNest{0, 6, 2, 3, 0, 0, 0, 1, 0, 0}));  // repeats with src offsets
  Instruction g = hw::makeGemm(LoopNest{0, 1, 1, 3});                 // same row three times
  g.push_next = true;
  p.push_back(g);
  uint64_t out = r.buffer(2 * r.cfg.entryBytes(Memory::Output));
  Instruction st = hw::makeStore(0, r.entryOf(out, Memory::Output), 1, 2, 2);
  st.pop_prev = true;
  p.push_back(st);
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
}

// Every ALU op, immediate and tensor, with micro-op chains where each vector
// reads the one written just before it (ALU RAW hazards on ACC).
TEST_P(CornerTest, EveryAluOpImmAndTensorWithHazards) {
  DualRig r(GetParam());
  const uint32_t n = 8;
  uint64_t acc = r.buffer(n * r.cfg.entryBytes(Memory::Acc));
  // dst i takes src i-1: a chain through consecutive micro-ops.
  std::vector<Uop> chain;
  for (uint32_t i = 1; i < n; ++i) chain.push_back({i, i - 1, 0});
  uint64_t uop = r.uops(chain);
  std::vector<Instruction> p;
  p.push_back(hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, n, n));
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, n - 1, n - 1));
  for (int op = 0; op < hw::numAluOps(r.cfg); ++op) {
    p.push_back(hw::makeAlu(AluOp(op), LoopNest{0, n - 1, 1, 1}));
    const int32_t imm =
        op == int(AluOp::Shr) || op == int(AluOp::Rshr) ? (op == int(AluOp::Shr) ? -3 : 5) : 77 * op - 200;
    p.push_back(hw::makeAluImm(AluOp(op), LoopNest{0, n - 1, 1, 1}, imm));
  }
  // Large shift amounts are clamped.
  p.push_back(hw::makeAluImm(AluOp::Rshr, LoopNest{0, n - 1, 1, 1}, 40));
  p.push_back(hw::makeAluImm(AluOp::Shr, LoopNest{0, n - 1, 1, 1}, -40));
  p.back().push_next = true;
  uint64_t out = r.buffer(n * r.cfg.entryBytes(Memory::Output));
  Instruction st = hw::makeStore(0, r.entryOf(out, Memory::Output), 1, n, n);
  st.pop_prev = true;
  p.push_back(st);
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
  EXPECT_GT(o.cycle.stats.cycle_counters.alu_cycles, 0u);
}

// Many more instructions than the command and token queues hold: fetch and
// the modules must stall on full queues and still finish correctly.
TEST_P(CornerTest, BackPressureOnFullCommandAndTokenQueues) {
  DualRig r(GetParam());
  // Load runs up to D tiles ahead (INP slots t % D), so the load->compute
  // queue fills; the command queues fill because every module has many more
  // instructions than slots.
  const uint32_t D = r.cfg.token_queue_depth;
  const uint32_t tiles = 3 * D + 2;
  uint64_t inp = r.buffer(tiles * r.cfg.entryBytes(Memory::Input));
  uint64_t wgt = r.buffer(r.cfg.entryBytes(Memory::Weight));
  std::vector<Uop> slots;
  for (uint32_t s = 0; s < D; ++s) slots.push_back({0, s, 0});
  uint64_t uop = r.uops(slots);
  uint64_t out = r.buffer(tiles * r.cfg.entryBytes(Memory::Output));
  std::vector<Instruction> p;
  p.push_back(hw::makeLoad(Memory::Weight, 0, r.entryOf(wgt, Memory::Weight), 1, 1, 1));
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, D, D));
  for (uint32_t t = 0; t < tiles; ++t) {
    Instruction l = hw::makeLoad(Memory::Input, t % D, r.entryOf(inp, Memory::Input) + t, 1, 1, 1);
    l.push_next = true;
    l.pop_next = t >= D;
    p.push_back(l);
    Instruction g0 = hw::makeGemm(LoopNest{0, 1, 1, 1}, true);
    g0.pop_prev = true;
    g0.pop_next = t > 0;
    p.push_back(g0);
    Instruction g = hw::makeGemm(LoopNest{t % D, t % D + 1, 1, 1});
    g.push_prev = t + D < tiles;
    g.push_next = true;
    p.push_back(g);
    Instruction st = hw::makeStore(0, r.entryOf(out, Memory::Output) + t, 1, 1, 1);
    st.pop_prev = true;
    st.push_prev = t + 1 < tiles;
    p.push_back(st);
  }
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
  EXPECT_GT(o.cycle.stats.cycle_counters.fetch.wait_room, 0u);
}

TEST_P(CornerTest, IllegalInstructionsReportTheirIndex) {
  DualRig r(GetParam());
  std::vector<Instruction> good = {hw::makeAluImm(AluOp::Add, LoopNest{0, 0, 1, 1}, 0), hw::makeFinish()};
  std::vector<uint8_t> stream = hw::encodeInstructionStream(r.layout, good);
  std::vector<uint8_t> bad = stream;
  bad[16 * 0] = (bad[0] & ~7) | 7;  // opcode 7
  auto o = r.runRaw(bad, 2);
  EXPECT_FALSE(o.cycle.ok());
  EXPECT_NE(o.cycle.message.find("instruction 0"), std::string::npos) << o.cycle.message;
  EXPECT_NE(o.cycle.message.find("opcode"), std::string::npos) << o.cycle.message;

  // SRAM range: a LOAD past the end of ACC.
  uint64_t acc = r.buffer(4 * r.cfg.entryBytes(Memory::Acc));
  std::vector<Instruction> p = {
      hw::makeLoad(Memory::Acc, r.cfg.depth(Memory::Acc) - 1, r.entryOf(acc, Memory::Acc), 1, 2, 2), hw::makeFinish()};
  o = r.run(p);
  EXPECT_FALSE(o.cycle.ok());
  EXPECT_NE(o.cycle.message.find("instruction 0"), std::string::npos) << o.cycle.message;

  // A loop nest reaching past ACC.
  uint64_t uop = r.uops({{1, 0, 0}});
  p = {hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 1, 1),
       hw::makeAluImm(AluOp::Add, LoopNest{0, 1, 1, r.cfg.depth(Memory::Acc), 0, 1}, 1), hw::makeFinish()};
  o = r.run(p);
  EXPECT_FALSE(o.cycle.ok());
  EXPECT_NE(o.cycle.message.find("instruction 1"), std::string::npos) << o.cycle.message;
  EXPECT_NE(o.cycle.message.find("dst"), std::string::npos) << o.cycle.message;

  // The device recovers: a good program runs afterwards.
  o = r.run(good);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
}

TEST_P(CornerTest, DeadlockIsReportedWithTheWaitingModule) {
  DualRig r(GetParam());
  Instruction g = hw::makeGemm(LoopNest{0, 0, 1, 1});
  g.pop_prev = true;  // no load ever pushes
  auto o = r.run({g, hw::makeFinish()});
  EXPECT_FALSE(o.cycle.ok());
  EXPECT_NE(o.cycle.message.find("deadlock"), std::string::npos) << o.cycle.message;
  EXPECT_NE(o.cycle.message.find("compute module waits at instruction 0"), std::string::npos) << o.cycle.message;
  EXPECT_NE(o.cycle.message.find("load->compute"), std::string::npos) << o.cycle.message;
}

TEST_P(CornerTest, CycleLimitStopsARunWithTheModuleStates) {
  driver::DeviceOptions options;
  options.max_cycles = 100;
  DualRig r(GetParam(), options);
  uint64_t acc = r.buffer(r.cfg.entryBytes(Memory::Acc));
  uint64_t uop = r.uops({{0, 0, 0}});
  auto o = r.run({hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, 1, 1),
                  hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 1, 1),
                  hw::makeAluImm(AluOp::Add, LoopNest{0, 1, 100, 100}, 1), hw::makeFinish()},
                 /*same_status=*/false);
  // fsim has no cycle limit; only the cycle device stops.
  EXPECT_TRUE(o.fsim.ok());
  ASSERT_FALSE(o.cycle.ok());
  EXPECT_NE(o.cycle.message.find("cycle limit of 100"), std::string::npos) << o.cycle.message;
  EXPECT_NE(o.cycle.message.find("compute module is busy at instruction 2"), std::string::npos) << o.cycle.message;
}

TEST_P(CornerTest, OutOfRangeAxiAccessNamesAddressAndBurst) {
  DualRig r(GetParam());
  uint64_t inp = r.buffer(2 * r.cfg.entryBytes(Memory::Input));
  // Two rows 4 KiB apart: the second lies in the unmapped guard gap after the buffer.
  const uint32_t stride = 4096 / r.cfg.entryBytes(Memory::Input);
  auto o = r.run({hw::makeLoad(Memory::Input, 0, r.entryOf(inp, Memory::Input), 2, 1, stride), hw::makeFinish()});
  EXPECT_FALSE(o.fsim.ok());
  ASSERT_FALSE(o.cycle.ok());
  EXPECT_NE(o.cycle.message.find("instruction 0"), std::string::npos) << o.cycle.message;
  EXPECT_NE(o.cycle.message.find("AXI read burst"), std::string::npos) << o.cycle.message;
  EXPECT_NE(o.cycle.message.find("load module"), std::string::npos) << o.cycle.message;
}

INSTANTIATE_TEST_SUITE_P(Configs, CornerTest, ::testing::Values("tiny", "pynq"));

// FREQ (extension float_requant) where its roundings decide: accumulators of
// every size with scales that bring them into the int8 range, products on
// half-integers among them, and a zero point; the RTL's normalisation,
// product rounding and second rounding against fsim's integer definition.
TEST(FloatRequantRtl, RealisticScalesAndTiesMatchFsim) {
  DualRig r("zcu104");  // the shipped config with the extension (its model is built on first use)
  ASSERT_TRUE(r.cfg.float_requant);
  const uint32_t n = 48, lanes = r.cfg.batch * r.cfg.block_out;
  std::mt19937_64 rng(5);
  std::vector<int32_t> acc(size_t(2) * n * lanes);  // a at [0, n), scales at [n, 2n)
  for (size_t i = 0; i < size_t(n) * lanes; ++i) {
    int32_t a = int32_t(uint32_t(rng())) >> (rng() % 31);
    if (a == 0) a = 1;
    const double target = double(int64_t(rng() % 301) - 150) + (rng() % 3 == 0 ? 0.5 : double(rng() % 1000) / 1000);
    const float scale = float(target / a);
    std::memcpy(&acc[size_t(n) * lanes + i], &scale, sizeof scale);
    acc[i] = a;
  }
  std::vector<uint8_t> bytes(acc.size() * 4);
  std::memcpy(bytes.data(), acc.data(), bytes.size());
  const uint64_t acc_buf = r.buffer(bytes.size(), &bytes);
  const uint64_t uop = r.uops({{0, n, 0}});
  std::vector<Instruction> p;
  p.push_back(hw::makeLoad(Memory::Acc, 0, r.entryOf(acc_buf, Memory::Acc), 1, 2 * n, 2 * n));
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 1, 1));
  Instruction freq = hw::makeAlu(AluOp::FReq, LoopNest{0, 1, 1, n, 0, 1, 0, 1});
  freq.imm = -17;  // the zero point
  freq.push_next = true;
  p.push_back(freq);
  const uint64_t out = r.buffer(size_t(n) * r.cfg.entryBytes(Memory::Output));
  Instruction st = hw::makeStore(0, r.entryOf(out, Memory::Output), 1, n, n);
  st.pop_prev = true;
  p.push_back(st);
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  ASSERT_TRUE(o.cycle.ok()) << o.cycle.message;
  EXPECT_EQ(o.cycle.stats.cycle_counters.alu_cycles, n);  // one vector per cycle, as REQ
  std::vector<int8_t> got(size_t(n) * lanes);
  for (const driver::Buffer& b : r.buffers)
    if (b.phys_addr == out) r.fsim->read(b, 0, got.data(), got.size());
  size_t inside = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], hw::floatRequant(acc[i], uint32_t(acc[size_t(n) * lanes + i]), -17)) << "element " << i;
    inside += got[i] > -128 && got[i] < 127;
  }
  EXPECT_GT(inside, got.size() / 2);  // mostly unsaturated: the roundings are what is compared
}

// The ALU's operand register (docs/hardware.md): a tensor-operand micro-op
// that reads the same ACC[src] as the one before it takes the value from a
// register instead of the ACC read port. Each case below is where a stale
// register would give a different result from fsim.
class OperandRegisterTest : public ::testing::TestWithParam<std::string> {};

// Every ALU op with one operand vector per outer iteration, repeated for the
// whole inner loop (the per-channel parameter pattern of the compiler), then
// with two micro-ops sharing one src.
TEST_P(OperandRegisterTest, SameSrcRepeatedForEveryOp) {
  DualRig r(GetParam());
  const uint32_t params = 3, inner = 7, n = params * inner, P = n;  // params at ACC[P..P+3)
  uint64_t acc = r.buffer((n + params) * r.cfg.entryBytes(Memory::Acc));
  uint64_t uop = r.uops({{0, P, 0}, {0, P, 0}, {1, P, 0}});
  std::vector<Instruction> p;
  p.push_back(hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, n + params, n + params));
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 3, 3));
  for (int op = 0; op < hw::numAluOps(r.cfg); ++op) {
    if (AluOp(op) == AluOp::Mov) continue;  // would overwrite every dst with the parameters
    // dst = o*inner + i, src = P + o: the src stays for `inner` vectors.
    p.push_back(hw::makeAlu(AluOp(op), LoopNest{0, 1, params, inner, inner, 1, 1, 0}));
  }
  // Micro-ops 1 and 2 read ACC[P] in turn: the register is shared by micro-ops.
  p.push_back(hw::makeAlu(AluOp::Add, LoopNest{1, 3, 1, n / 2, 0, 2, 0, 0}));
  p.push_back(hw::makeAlu(AluOp::Mov, LoopNest{0, 1, 1, 4, 0, 1, 0, 0}));
  storeAccThroughOut(r, p, n + params, r.entryOf(uop, Memory::Uop) + 0);
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
}

// src == dst: each vector reads the value the previous one wrote, both through
// the register (ADD doubles ACC[s] every iteration) and with the dst loop
// passing over the src index, so that ACC[src] changes part way through.
TEST_P(OperandRegisterTest, SrcWrittenInsideTheInstruction) {
  DualRig r(GetParam());
  const uint32_t n = 16, s = 5;
  uint64_t acc = r.buffer(n * r.cfg.entryBytes(Memory::Acc));
  uint64_t uop = r.uops({{s, s, 0}, {0, s, 0}, {s, s, 0}, {s + 1, s, 0}});
  std::vector<Instruction> p;
  p.push_back(hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, n, n));
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 4, 4));
  p.push_back(hw::makeAlu(AluOp::Add, LoopNest{0, 1, 1, 6}));                  // ACC[s] *= 2, six times
  p.push_back(hw::makeAlu(AluOp::Add, LoopNest{1, 2, 1, n, 0, 1, 0, 0}));      // dst 0..15 over src 5
  p.push_back(hw::makeAlu(AluOp::Mul, LoopNest{1, 2, 2, n / 2, 0, 1, 0, 0}));  // twice over src 5
  p.push_back(hw::makeAlu(AluOp::Max, LoopNest{2, 4, 1, 3}));                  // s = op(s, s) then s+1
  p.push_back(hw::makeAlu(AluOp::Mov, LoopNest{1, 2, 1, n, 0, 1, 0, 0}));      // broadcast, dst over src
  storeAccThroughOut(r, p, n, r.entryOf(uop, Memory::Uop) + 1);
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
}

// Instructions between two uses of the same src that write ACC[src]: GEMM
// (accumulate and reset), ALU with an immediate, a tensor ALU with another
// src, LOAD ACC and LOAD ACC8 (a whole entry, and padding zeros).
TEST_P(OperandRegisterTest, WritesBetweenTwoUsesOfTheSameSrc) {
  DualRig r(GetParam());
  const uint32_t n = 8, P = 6;
  uint64_t acc = r.buffer(n * r.cfg.entryBytes(Memory::Acc));
  uint64_t acc_more = r.buffer(4 * r.cfg.entryBytes(Memory::Acc));
  uint64_t acc8 = r.buffer(4 * r.cfg.entryBytes(Memory::Acc8));
  uint64_t inp = r.buffer(r.cfg.entryBytes(Memory::Input));
  uint64_t wgt = r.buffer(r.cfg.entryBytes(Memory::Weight));
  // 0: the ALU kernel (dst 0, src P); 1: GEMM on ACC[P]; 2: dst P, src 7.
  uint64_t uop = r.uops({{0, P, 0}, {P, 0, 0}, {P, 7, 0}});
  std::vector<Instruction> p;
  p.push_back(hw::makeLoad(Memory::Input, 0, r.entryOf(inp, Memory::Input), 1, 1, 1));
  Instruction lw = hw::makeLoad(Memory::Weight, 0, r.entryOf(wgt, Memory::Weight), 1, 1, 1);
  lw.push_next = true;
  p.push_back(lw);
  p.push_back(hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, n, n));
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 3, 3));
  const LoopNest use{0, 1, 1, 4, 0, 1, 0, 0};  // dst 0..3, src P each time
  auto useSrc = [&](AluOp op) { p.push_back(hw::makeAlu(op, use)); };
  useSrc(AluOp::Add);
  Instruction g = hw::makeGemm(LoopNest{1, 2, 1, 1});
  g.pop_prev = true;
  p.push_back(g);  // ACC[P] += INP . WGT
  useSrc(AluOp::Add);
  p.push_back(hw::makeGemm(LoopNest{1, 2, 1, 1}, true));  // ACC[P] = 0
  useSrc(AluOp::Max);
  p.push_back(hw::makeAluImm(AluOp::Add, LoopNest{1, 2, 1, 1}, -1234));  // ACC[P] (dst of micro-op 1)
  useSrc(AluOp::Add);
  p.push_back(hw::makeAlu(AluOp::Mul, LoopNest{2, 3, 1, 1}));  // ACC[P] *= ACC[7]
  useSrc(AluOp::Add);
  p.push_back(hw::makeLoad(Memory::Acc, P, r.entryOf(acc_more, Memory::Acc), 1, 1, 1));
  useSrc(AluOp::Add);
  p.push_back(hw::makeLoad(Memory::Acc8, P - 1, r.entryOf(acc8, Memory::Acc8), 1, 2, 2));  // ACC[5..7)
  useSrc(AluOp::Add);
  hw::Padding pad;
  pad.left = 1;  // ACC[P] = 0 from padding, ACC[P+1] from DRAM
  p.push_back(hw::makeLoad(Memory::Acc, P, r.entryOf(acc_more, Memory::Acc) + 1, 1, 1, 1, pad));
  useSrc(AluOp::Add);
  p.push_back(hw::makeLoad(Memory::Acc8, P, r.entryOf(acc8, Memory::Acc8) + 2, 1, 1, 1));
  useSrc(AluOp::Min);
  storeAccThroughOut(r, p, n, r.entryOf(uop, Memory::Uop) + 0);
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
}

// Ops whose src is the dst of the op one or two ahead of them: ACC[i+d] =
// op(ACC[i+d], ACC[i]) along a run, a running sum or product. With one read
// port each such op waits a cycle; with acc_dual_read they issue back to
// back, and the src read misses the write of the op ahead (S5 writes it at
// the edge where S4 takes the read data), which the register then takes from
// S5. d = 2 meets the write made at the read's own edge (`last_wr`).
TEST_P(OperandRegisterTest, SrcIsTheDstOfAnOpAhead) {
  DualRig r(GetParam());
  const uint32_t n = 24;
  uint64_t acc = r.buffer((n + 2) * r.cfg.entryBytes(Memory::Acc));
  uint64_t uop = r.uops({{1, 0, 0}, {2, 0, 0}, {0, 0, 0}});
  std::vector<Instruction> p;
  p.push_back(hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, n + 2, n + 2));
  p.push_back(hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 3, 3));
  // Small values first, so that the running sums and maxima stay exact and
  // differ from entry to entry.
  p.push_back(hw::makeAluImm(AluOp::Shr, LoopNest{2, 3, 1, n + 2, 0, 1, 0, 0}, 24));
  p.push_back(hw::makeAlu(AluOp::Add, LoopNest{0, 1, 1, n, 0, 1, 0, 1}));              // ACC[i+1] += ACC[i]
  p.push_back(hw::makeAlu(AluOp::Add, LoopNest{1, 2, 1, n, 0, 1, 0, 1}));              // ACC[i+2] += ACC[i]
  p.push_back(hw::makeAlu(AluOp::Max, LoopNest{0, 1, 1, n, 0, 1, 0, 1}));              // ACC[i+1] = max(., ACC[i])
  p.push_back(hw::makeAlu(AluOp::Min, LoopNest{0, 1, 2, n / 2, n / 2, 1, n / 2, 1}));  // the chain over both loops
  if (r.cfg.alu_bias_clear) {
    // bias_clear reads ACC[src+1] too, through a bias fetch ahead of every op
    // here (the src changes each time): ACC[src+1] is the dst of the op
    // itself (micro-op 0), then of the op one ahead (micro-op 1: dst i+2,
    // src i); its result goes to OUT only and ACC[dst] to zero.
    for (uint32_t u : {0u, 1u}) {
      Instruction b = hw::makeAlu(AluOp::Add, LoopNest{u, u + 1, 1, n / 2, 0, 1, 0, 1});
      b.bias_clear = true;
      p.push_back(b);
      p.push_back(hw::makeAluImm(AluOp::Add, LoopNest{2, 3, 1, n + 2, 0, 1, 0, 0}, 7));  // refill the zeros
    }
  }
  storeAccThroughOut(r, p, n + 2, r.entryOf(uop, Memory::Uop) + 2);
  p.push_back(hw::makeFinish());
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
}

// Compute cycles of one program that LOADs ACC and UOP and runs `alu`
// (which must not read past `entries`).
uint64_t computeCycles(DualRig& r, uint64_t acc, uint64_t uop, uint32_t entries, const Instruction& alu,
                       uint64_t* alu_cycles = nullptr) {
  std::vector<Instruction> p = {hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, entries, entries),
                                hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 1, 1), alu,
                                hw::makeFinish()};
  auto o = r.run(p);
  EXPECT_TRUE(o.cycle.ok()) << o.cycle.message;
  if (alu_cycles) *alu_cycles = o.cycle.stats.cycle_counters.alu_cycles;
  return o.cycle.stats.cycle_counters.compute.busy;
}

// A tensor ALU whose src stays the same issues one vector per cycle; one whose
// src changes every vector two, or one with acc_dual_read. Measured as the
// extra compute cycles of N more vectors, so that the loads and the pipeline
// fill cancel out.
TEST_P(OperandRegisterTest, RepeatedSrcTakesOneCyclePerVector) {
  DualRig r(GetParam());
  const uint32_t N = 24, entries = 2 * N + 1;
  uint64_t acc = r.buffer(entries * r.cfg.entryBytes(Memory::Acc));
  uint64_t uop = r.uops({{1, 0, 0}});
  auto perVector = [&](uint32_t src_in) {
    uint64_t alu_short = 0, alu_long = 0;
    const uint64_t a =
        computeCycles(r, acc, uop, entries, hw::makeAlu(AluOp::Mul, LoopNest{0, 1, 1, N, 0, 1, 0, src_in}), &alu_short);
    const uint64_t b = computeCycles(r, acc, uop, entries,
                                     hw::makeAlu(AluOp::Mul, LoopNest{0, 1, 1, 2 * N, 0, 1, 0, src_in}), &alu_long);
    EXPECT_EQ(alu_short, N);
    EXPECT_EQ(alu_long, 2 * N);
    return double(b - a) / N;
  };
  const double repeated = perVector(0), changing = perVector(1);
  std::printf("[ operand register ] %s: %.2f cycles per vector with the src repeated, %.2f with a new src each time\n",
              GetParam().c_str(), repeated, changing);
  EXPECT_NEAR(repeated, 1.0, 0.05);
  EXPECT_NEAR(changing, r.cfg.acc_dual_read ? 1.0 : 2.0, 0.05);
}

// tiny has one ACC read port, pynq two (acc_dual_read).
INSTANTIATE_TEST_SUITE_P(Configs, OperandRegisterTest, ::testing::Values("tiny", "pynq"));

}  // namespace
}  // namespace vdla::cycletest
