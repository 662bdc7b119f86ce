// Bad programs: every one must end quickly with a vdla::Error whose message
// names the instruction and the reason.
#include <chrono>
#include <fstream>

#include "sim_test_util.h"

namespace vdla::simtest {
namespace {

using hw::makeAlu;
using hw::makeAluImm;
using hw::makeFinish;
using hw::makeGemm;
using hw::makeLoad;
using hw::makeStore;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// Runs `f`, which must throw vdla::Error within a second; returns the message.
template <class F>
std::string errorOf(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  std::string message;
  try {
    f();
    ADD_FAILURE() << "no error was reported";
  } catch (const Error& e) {
    message = e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected vdla::Error, got another exception: " << e.what();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 1.0) << "reporting the error took too long";
  return message;
}

// A compute instruction that does nothing (empty micro-op range).
Instruction nop() { return makeAlu(AluOp::Min, {}); }

class FsimErrors : public ::testing::Test {
 protected:
  Rig rig{"tiny"};
  std::string runError(const std::vector<Instruction>& prog) {
    return errorOf([&] { rig.runStream(prog); });
  }
  std::string runDecodedError(const std::vector<Instruction>& prog) {
    return errorOf([&] { rig.fsim.run(prog); });
  }
  // A DRAM buffer of `entries` entries of memory `m`; returns its entry index.
  uint64_t buffer(Memory m, uint32_t entries) {
    uint64_t addr = rig.dram.allocate(uint64_t(entries) * rig.entryBytes(m));
    return rig.entry(addr, m);
  }
};

// ---------------------------------------------------------------------------
// On-chip memory bounds

TEST_F(FsimErrors, LoadPastDepthOfEveryMemory) {
  for (Memory m : {Memory::Uop, Memory::Weight, Memory::Input, Memory::Acc, Memory::Acc8}) {
    SCOPED_TRACE(hw::memoryName(m));
    const uint32_t depth = rig.depth(m);
    const uint64_t src = buffer(m, 4);
    // The last entry fits; two entries from there do not.
    EXPECT_NO_THROW(rig.runStream({nop(), makeLoad(m, depth - 1, src, 1, 1, 1), makeFinish()}));
    std::string msg = runError({nop(), makeLoad(m, depth - 1, src, 1, 2, 2), makeFinish()});
    EXPECT_THAT(msg, AllOf(HasSubstr("instruction 1"), HasSubstr(std::string("LOAD ") + hw::memoryName(m)),
                           HasSubstr("[" + std::to_string(depth - 1) + ", " + std::to_string(depth + 1) + ")"),
                           HasSubstr(std::to_string(depth) + " entries")));
    // Padding counts: a one-entry block with the largest padding is too big.
    if (m != Memory::Uop) {
      msg = runError({nop(), nop(), makeLoad(m, 0, src, 1, 1, 1, {15, 15, 15, 15}), makeFinish()});
      EXPECT_THAT(
          msg, AllOf(HasSubstr("instruction 2"), HasSubstr("[0, 961)"), HasSubstr(std::to_string(depth) + " entries")));
    }
  }
}

TEST_F(FsimErrors, GemmIndexPastDepthThroughLoopFactors) {
  // Micro-op memory starts zeroed: uop 0 is {0, 0, 0}.
  struct Case {
    hw::LoopNest nest;
    const char* role;
    const char* memory;
    uint32_t reach;
  } cases[] = {
      {{0, 1, 3, 1, 32, 0, 0, 0, 0, 0}, "dst (accumulator) index reaches 64", "ACC memory has 64 entries", 64},
      {{0, 1, 1, 3, 0, 0, 0, 64, 0, 0}, "src (input) index reaches 128", "INP memory has 128 entries", 128},
      {{0, 1, 3, 1, 0, 0, 0, 0, 32, 0}, "wgt (weight) index reaches 64", "WGT memory has 64 entries", 64},
      {{0, 1, 2, 2, 31, 33, 0, 0, 0, 0}, "dst (accumulator) index reaches 64", "ACC memory has 64 entries", 64},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.role);
    std::string msg = runError({nop(), makeGemm(c.nest), makeFinish()});
    EXPECT_THAT(msg, AllOf(HasSubstr("instruction 1"), HasSubstr("GEMM"), HasSubstr(c.role), HasSubstr(c.memory)));
    // One iteration fewer stays inside the memory.
    hw::LoopNest smaller = c.nest;
    if (smaller.iter_in > 1)
      smaller.iter_in--;
    else
      smaller.iter_out--;
    EXPECT_NO_THROW(rig.runStream({nop(), makeGemm(smaller), makeFinish()}));
  }
  // Through the micro-op itself: dst 63 + one inner step.
  uint64_t uop = rig.uploadUops({{63, 0, 0}});
  std::string msg = runError({makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1), makeGemm({0, 1, 1, 2, 0, 1}), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 1"), HasSubstr("dst (accumulator) index reaches 64")));
}

TEST_F(FsimErrors, AluIndexPastDepth) {
  // src = 10 + i*60 reaches 70.
  uint64_t uop = rig.uploadUops({{0, 10, 0}, {0, 100, 0}});
  std::string msg = runError({makeLoad(Memory::Uop, 0, uop / 4, 1, 2, 2), nop(),
                              makeAlu(AluOp::Add, {0, 1, 1, 2, 0, 0, 0, 60}), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 2"), HasSubstr("ALU ADD"),
                         HasSubstr("src (accumulator) index reaches 70"), HasSubstr("64 entries")));
  // A micro-op whose src (encodable up to the input depth) is past the accumulator.
  msg = runError({makeAlu(AluOp::Max, {1, 2, 1, 1}), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("src (accumulator) index reaches 100")));
  // dst through the outer factor, with an immediate (src is not checked then).
  msg = runError({makeAluImm(AluOp::Add, {1, 2, 3, 1, 32, 0, 0, 0}, 1), makeFinish()});
  EXPECT_THAT(
      msg, AllOf(HasSubstr("instruction 0"), HasSubstr("dst (accumulator) index reaches 64"), Not(HasSubstr("src"))));
  EXPECT_NO_THROW(rig.runStream({makeAluImm(AluOp::Add, {1, 2, 2, 1, 32, 0, 0, 0}, 1), makeFinish()}));
}

// SETREQ reads ACC[sram_base] and ACC[sram_base + 1]: the bias entry must
// be inside the memory too (gemm_requant on pynq, its builtin JSON with the
// extension added unless it has it).
TEST(FsimSetReqErrors, BiasEntryPastTheAccumulatorDepth) {
  std::string json = *hw::builtinConfigText("pynq");
  if (!hw::loadConfig("pynq").gemm_requant)
    json.insert(json.find("\"extensions\": {") + 15, "\"gemm_requant\": true, ");
  const std::string path = ::testing::TempDir() + "vdla_fsim_errors_pynq_gemm_requant.json";
  std::ofstream(path) << json;
  Rig rig(path);
  ASSERT_TRUE(rig.cfg.gemm_requant);
  const uint32_t depth = rig.depth(Memory::Acc);
  auto setreq = [](uint32_t base) {
    Instruction i;
    i.opcode = hw::Opcode::SetReq;
    i.alu_op = AluOp::Req;
    i.sram_base = base;
    return i;
  };
  rig.writeAcc(depth - 2, std::vector<int32_t>(2 * rig.accLanes(), 1));
  EXPECT_NO_THROW(rig.runStream({setreq(depth - 2), makeFinish()}));
  const std::string msg = errorOf([&] { rig.runStream({nop(), setreq(depth - 1), makeFinish()}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 1"), HasSubstr("SETREQ"), HasSubstr(std::to_string(depth))));
}

TEST_F(FsimErrors, MicroOpRangeOutsideUopMemory) {
  const uint32_t depth = rig.depth(Memory::Uop);
  ASSERT_EQ(depth, 256u);
  std::string msg = runError({nop(), makeGemm({250, 257, 1, 1}), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 1"), HasSubstr("GEMM"), HasSubstr("micro-op range [250, 257)"),
                         HasSubstr("256 entries")));
  msg = runError({makeAlu(AluOp::Mov, {0, 257, 1, 1}), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("ALU MOV"), HasSubstr("micro-op range [0, 257)")));
  msg = runError({makeGemm({5, 3, 1, 1}), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("micro-op range [5, 3)")));
  EXPECT_NO_THROW(rig.runStream({makeGemm({250, 256, 1, 1}, true), makeFinish()}));
}

TEST_F(FsimErrors, StorePastOutDepth) {
  const uint64_t dst = buffer(Memory::Output, 8);
  std::string msg = runError({nop(), nop(), makeStore(60, dst, 1, 5, 5), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 2"), HasSubstr("STORE OUT"), HasSubstr("OUT entries [60, 65)"),
                         HasSubstr("64 entries")));
  // Rows count: 2 rows of 3 from entry 59 reach 65.
  msg = runError({makeStore(59, dst, 2, 3, 3), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("OUT entries [59, 65)")));
  EXPECT_NO_THROW(rig.runStream({makeStore(60, dst, 2, 2, 2), makeFinish()}));
}

// ---------------------------------------------------------------------------
// DRAM bounds

TEST_F(FsimErrors, LoadOutsideDramBuffer) {
  const uint64_t src = buffer(Memory::Input, 4);
  // One entry past the end of the buffer.
  std::string msg = runError({makeLoad(Memory::Input, 0, src, 1, 5, 5), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("LOAD INP"), HasSubstr("DRAM range"),
                         HasSubstr("not inside an allocated buffer")));
  // The second row runs past the end through the stride.
  msg = runError({nop(), makeLoad(Memory::Input, 0, src, 2, 2, 3), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 1"), HasSubstr("INP entry " + std::to_string(src + 3)),
                         HasSubstr("not inside an allocated buffer")));
  EXPECT_NO_THROW(rig.runStream({makeLoad(Memory::Input, 0, src, 2, 1, 3), makeFinish()}));
  // Unmapped: address 0 and an address past every buffer.
  msg = runError({makeLoad(Memory::Weight, 0, 0, 1, 1, 1), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("LOAD WGT"), HasSubstr("[0x0, 0x20)"),
                         HasSubstr("not inside an allocated buffer")));
  msg = runError({makeLoad(Memory::Acc, 0, src + 100000, 1, 1, 1), makeFinish()});
  EXPECT_THAT(msg,
              AllOf(HasSubstr("instruction 0"), HasSubstr("LOAD ACC"), HasSubstr("not inside an allocated buffer")));
  msg = runError({makeLoad(Memory::Uop, 0, 0, 1, 1, 1), makeFinish()});
  EXPECT_THAT(msg,
              AllOf(HasSubstr("instruction 0"), HasSubstr("LOAD UOP"), HasSubstr("not inside an allocated buffer")));
}

TEST_F(FsimErrors, StoreOutsideDramBuffer) {
  const uint64_t dst = buffer(Memory::Output, 4);
  std::string msg = runError({nop(), makeStore(0, dst, 1, 5, 5), makeFinish()});
  EXPECT_THAT(msg,
              AllOf(HasSubstr("instruction 1"), HasSubstr("STORE OUT"), HasSubstr("not inside an allocated buffer")));
  msg = runError({makeStore(0, dst, 2, 2, 3), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("not inside an allocated buffer")));
  msg = runError({makeStore(0, 0, 1, 1, 1), makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction 0"), HasSubstr("[0x0, 0x10)")));
  EXPECT_NO_THROW(rig.runStream({makeStore(0, dst, 2, 1, 3), makeFinish()}));
}

TEST_F(FsimErrors, InstructionFetchOutsideDram) {
  std::string msg = errorOf([&] { rig.fsim.run(uint64_t(0), 2); });
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction fetch"), HasSubstr("not inside an allocated buffer")));
  // A valid stream, but the count runs past the end of its buffer.
  std::vector<uint8_t> stream = hw::encodeInstructionStream(rig.layout, {nop(), makeFinish()});
  uint64_t addr = rig.upload(stream);
  EXPECT_NO_THROW(rig.fsim.run(addr, 2));
  msg = errorOf([&] { rig.fsim.run(addr, 3); });
  EXPECT_THAT(msg, AllOf(HasSubstr("instruction fetch"), HasSubstr("3 instructions")));
  // Past every buffer.
  msg = errorOf([&] { rig.fsim.run(addr + (uint64_t(1) << 31), 1); });
  EXPECT_THAT(msg, HasSubstr("instruction fetch"));
}

// ---------------------------------------------------------------------------
// Dependency tokens

TEST_F(FsimErrors, DeadlockOnEmptyTokenQueue) {
  struct Case {
    Instruction insn;
    const char* module;
    const char* queue;
  };
  Instruction gemm = makeGemm({});
  gemm.pop_prev = true;
  Instruction alu = nop();
  alu.pop_next = true;
  Instruction load = makeLoad(Memory::Input, 0, 0, 0, 0, 0);
  load.pop_next = true;
  Instruction store = makeStore(0, 0, 0, 0, 0);
  store.pop_prev = true;
  const Case cases[] = {
      {gemm, "compute module waits at instruction 1", "empty load->compute queue"},
      {alu, "compute module waits at instruction 1", "empty store->compute queue"},
      {load, "load module waits at instruction 1", "empty compute->load queue"},
      {store, "store module waits at instruction 1", "empty compute->store queue"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.module);
    std::string msg = runError({nop(), c.insn, makeFinish()});
    EXPECT_THAT(msg, AllOf(HasSubstr("deadlock"), HasSubstr(c.module), HasSubstr(c.queue)));
  }
}

// A push onto a full queue that nobody drains is a deadlock, not a hang (tiny
// has token queues of depth 4).
TEST_F(FsimErrors, PushOntoFullTokenQueueIsDeadlock) {
  ASSERT_EQ(rig.cfg.token_queue_depth, 4u);
  std::vector<Instruction> prog;
  for (int i = 0; i < 5; ++i) {
    prog.push_back(nop());
    prog.back().push_next = true;
  }
  prog.push_back(makeFinish());
  std::string msg = runError(prog);
  EXPECT_THAT(msg, AllOf(HasSubstr("deadlock"), HasSubstr("compute module waits at instruction 4"),
                         HasSubstr("room in the full compute->store queue")));
  // The load module's queue to compute.
  prog.clear();
  for (int i = 0; i < 5; ++i) {
    prog.push_back(makeLoad(Memory::Weight, 0, 0, 0, 0, 0));
    prog.back().push_next = true;
  }
  prog.push_back(makeFinish());
  msg = runError(prog);
  EXPECT_THAT(msg, AllOf(HasSubstr("deadlock"), HasSubstr("load module waits at instruction 4"),
                         HasSubstr("room in the full load->compute queue")));
  // Four pushes fit, but nobody takes them: unbalanced at the end.
  prog.erase(prog.begin());
  msg = runError(prog);
  EXPECT_THAT(msg, AllOf(HasSubstr("4 unconsumed"), HasSubstr("load->compute")));
}

TEST_F(FsimErrors, UnconsumedTokens) {
  Instruction push = nop();
  push.push_next = true;
  std::string msg = runError({push, makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("unconsumed"), HasSubstr("compute->store")));
  Instruction st = makeStore(0, 0, 0, 0, 0);
  st.push_prev = true;
  msg = runError({st, makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("1 unconsumed"), HasSubstr("store->compute")));
  push = nop();
  push.push_prev = true;
  msg = runError({push, makeFinish()});
  EXPECT_THAT(msg, AllOf(HasSubstr("unconsumed"), HasSubstr("compute->load")));
}

// A correct hand-off through every queue runs (the control for the tests above).
TEST_F(FsimErrors, BalancedTokensThroughEveryQueueRun) {
  Instruction l1 = makeLoad(Memory::Input, 0, 0, 0, 0, 0);
  l1.push_next = true;
  Instruction c1 = nop();
  c1.pop_prev = c1.push_next = true;
  Instruction s1 = makeStore(0, 0, 0, 0, 0);
  s1.pop_prev = s1.push_prev = true;
  Instruction c2 = nop();
  c2.pop_next = c2.push_prev = true;
  Instruction l2 = makeLoad(Memory::Weight, 0, 0, 0, 0, 0);
  l2.pop_next = true;
  sim::ExecutionStats s;
  ASSERT_NO_THROW(s = rig.runStream({l1, c1, s1, c2, l2, makeFinish()}));
  for (int q = 0; q < 4; ++q) EXPECT_EQ(s.tokens_pushed[q], 1u) << sim::tokenQueueName(sim::TokenQueue(q));
  // Out of program order: the store is fetched before the compute that feeds it.
  ASSERT_NO_THROW(rig.runStream({s1, l1, c1, c2, l2, makeFinish()}));
}

// Fetch dispatches in order; with command queues of depth 4 (tiny), a compute
// instruction that waits for a load which sits behind four more compute
// instructions can never get its token.
TEST_F(FsimErrors, FullCommandQueueDeadlockNamesFetch) {
  ASSERT_EQ(rig.cfg.command_queue_depth, 4u);
  auto program = [](uint64_t wgt) {
    std::vector<Instruction> prog;
    Instruction wait = makeGemm({});
    wait.pop_prev = true;
    prog.push_back(wait);
    for (int i = 0; i < 4; ++i) prog.push_back(nop());
    Instruction lw = makeLoad(Memory::Weight, 0, wgt, 1, 1, 1);
    lw.push_next = true;
    prog.push_back(lw);
    prog.push_back(makeFinish());
    return prog;
  };
  std::string msg = runError(program(buffer(Memory::Weight, 1)));
  EXPECT_THAT(msg, AllOf(HasSubstr("deadlock"), HasSubstr("compute module waits at instruction 0"),
                         HasSubstr("fetch waits to dispatch instruction 4"), HasSubstr("depth 4"),
                         HasSubstr("load module is idle")));
  // With three filler instructions the load is dispatched and the program runs.
  std::vector<Instruction> shorter = program(buffer(Memory::Weight, 1));
  shorter.erase(shorter.begin() + 1);
  EXPECT_NO_THROW(rig.runStream(shorter));
  // The same program runs on a config with deeper command queues.
  Rig pynq("pynq");
  uint64_t w = pynq.dram.allocate(pynq.entryBytes(Memory::Weight));
  EXPECT_NO_THROW(pynq.runStream(program(pynq.entry(w, Memory::Weight))));
}

// ---------------------------------------------------------------------------
// Program structure

TEST_F(FsimErrors, FinishNotLast) {
  std::string msg = runError({nop(), makeFinish(), nop(), makeFinish()});
  EXPECT_THAT(
      msg, AllOf(HasSubstr("instruction 1"), HasSubstr("FINISH must be the last instruction"), HasSubstr("2 follow")));
}

TEST_F(FsimErrors, ProgramWithoutFinish) {
  std::string msg = runError({nop(), nop()});
  EXPECT_THAT(msg, AllOf(HasSubstr("2 instructions"), HasSubstr("does not end with FINISH")));
}

TEST_F(FsimErrors, EmptyProgram) {
  EXPECT_THAT(runDecodedError({}), HasSubstr("empty"));
  std::vector<uint8_t> stream = hw::encodeInstructionStream(rig.layout, {makeFinish()});
  uint64_t addr = rig.upload(stream);
  EXPECT_THAT(errorOf([&] { rig.fsim.run(addr, 0); }), HasSubstr("empty"));
}

TEST_F(FsimErrors, PrevFlagsOnLoadModule) {
  Instruction li = makeLoad(Memory::Input, 0, 0, 0, 0, 0);
  li.pop_prev = true;
  EXPECT_THAT(runError({nop(), li, makeFinish()}),
              AllOf(HasSubstr("instruction 1"), HasSubstr("LOAD INP"), HasSubstr("pop_prev")));
  Instruction lw = makeLoad(Memory::Weight, 0, 0, 0, 0, 0);
  lw.push_prev = true;
  EXPECT_THAT(runDecodedError({lw, makeFinish()}), AllOf(HasSubstr("instruction 0"), HasSubstr("push_prev")));
  // LOAD ACC runs on compute, where prev exists: no structural error (a deadlock instead).
  Instruction la = makeLoad(Memory::Acc, 0, 0, 0, 0, 0);
  la.pop_prev = true;
  EXPECT_THAT(runError({la, makeFinish()}), AllOf(HasSubstr("deadlock"), Not(HasSubstr("does not exist"))));
}

TEST_F(FsimErrors, NextFlagsOnStore) {
  Instruction st = makeStore(0, 0, 0, 0, 0);
  st.push_next = true;
  EXPECT_THAT(runError({nop(), nop(), st, makeFinish()}),
              AllOf(HasSubstr("instruction 2"), HasSubstr("STORE"), HasSubstr("push_next")));
  st = makeStore(0, 0, 0, 0, 0);
  st.pop_next = true;
  EXPECT_THAT(runError({st, makeFinish()}), AllOf(HasSubstr("instruction 0"), HasSubstr("pop_next")));
}

TEST_F(FsimErrors, StoreWithPadding) {
  const uint64_t dst = buffer(Memory::Output, 4);
  for (int side = 0; side < 4; ++side) {
    Instruction st = makeStore(0, dst, 1, 1, 1);
    (side == 0 ? st.y_pad_top : side == 1 ? st.y_pad_bottom : side == 2 ? st.x_pad_left : st.x_pad_right) = 1;
    EXPECT_THAT(runDecodedError({nop(), st, makeFinish()}),
                AllOf(HasSubstr("instruction 1"), HasSubstr("STORE cannot pad")));
  }
}

TEST_F(FsimErrors, LoadUopWithPadding) {
  uint64_t uop = rig.uploadUops({{0, 0, 0}});
  EXPECT_THAT(runError({makeLoad(Memory::Uop, 0, uop / 4, 1, 1, 1, {0, 0, 1, 0}), makeFinish()}),
              AllOf(HasSubstr("instruction 0"), HasSubstr("LOAD UOP cannot pad")));
}

TEST_F(FsimErrors, DecodeErrorInFetchedStreamNamesInstruction) {
  std::vector<uint8_t> stream = hw::encodeInstructionStream(rig.layout, {nop(), nop(), nop(), makeFinish()});
  // Instruction 1: opcode 7 (opcode is bits 0..2).
  std::vector<uint8_t> bad = stream;
  bad[16] |= 0x7;
  uint64_t addr = rig.upload(bad);
  EXPECT_THAT(errorOf([&] { rig.fsim.run(addr, 4); }),
              AllOf(HasSubstr("instruction 1"), HasSubstr("unknown opcode 7")));
  // Instruction 3 (FINISH) with a stray bit.
  bad = stream;
  bad[3 * 16 + 15] |= 0x80;
  addr = rig.upload(bad);
  EXPECT_THAT(errorOf([&] { rig.fsim.run(addr, 4); }),
              AllOf(HasSubstr("instruction 3"), HasSubstr("bits set outside its fields")));
  // Instruction 2: a LOAD of the OUT memory (memory field bits 7..9).
  Instruction load = makeLoad(Memory::Input, 0, 0, 0, 0, 0);
  stream = hw::encodeInstructionStream(rig.layout, {nop(), nop(), load, makeFinish()});
  uint64_t word = 0;
  for (int i = 0; i < 8; ++i) word |= uint64_t(stream[32 + i]) << (8 * i);
  word = (word & ~(uint64_t(7) << 7)) | (uint64_t(Memory::Output) << 7);
  for (int i = 0; i < 8; ++i) stream[32 + i] = uint8_t(word >> (8 * i));
  addr = rig.upload(stream);
  EXPECT_THAT(errorOf([&] { rig.fsim.run(addr, 4); }),
              AllOf(HasSubstr("instruction 2"), HasSubstr("invalid memory 4")));
}

TEST_F(FsimErrors, CancelStopsBeforeNextInstruction) {
  std::atomic<bool> cancel{true};
  std::string msg = errorOf([&] { rig.fsim.run({nop(), makeFinish()}, &cancel); });
  EXPECT_THAT(msg, AllOf(HasSubstr("cancelled"), HasSubstr("instruction 0")));
  cancel = false;
  EXPECT_NO_THROW(rig.fsim.run({nop(), makeFinish()}, &cancel));
}

}  // namespace
}  // namespace vdla::simtest
