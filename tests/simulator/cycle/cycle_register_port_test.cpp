// CycleRegisterPort: the RTL driven through its AXI-Lite registers, the clock
// advanced only by step(). A program started through the registers must
// leave the same DRAM bytes as fsim and a plain restatement of it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/program_binary.h"
#include "vdla/hw/registers.h"
#include "vdla/sim/cycle_register_port.h"
#include "vdla/sim/fsim.h"

namespace vdla::sim {
namespace {

namespace regs = hw::regs;
using hw::Memory;
using ::testing::HasSubstr;

hw::HwConfig tinyConfig() { return hw::loadConfig("tiny"); }

#define SKIP_WITHOUT_MODEL(cfg) \
  if (!cycleSimSupports(cfg)) GTEST_SKIP() << "no cycle-accurate model of " << cfg.name << " in this build"

TEST(CycleRegisterPort, IdentityRegistersAndReadBack) {
  const auto cfg = tinyConfig();
  SKIP_WITHOUT_MODEL(cfg);
  Dram dram;
  CycleRegisterPort port(cfg, dram);
  EXPECT_EQ(port.read(regs::kCtrl), 0u) << "idle after construction";
  EXPECT_EQ((uint64_t(port.read(regs::kHashHi)) << 32) | port.read(regs::kHashLo), cfg.hash);
  EXPECT_EQ(port.read(regs::kClockKhz), uint32_t(cfg.clock_mhz * 1000));
  port.write(regs::kInsnAddr, 0x12345670);
  port.write(regs::kInsnCount, 77);
  EXPECT_EQ(port.read(regs::kInsnAddr), 0x12345670u);
  EXPECT_EQ(port.read(regs::kInsnCount), 77u);
  // A register access is an AXI-Lite transaction: it takes clock cycles.
  const uint64_t before = port.cycle();
  port.read(regs::kCtrl);
  EXPECT_GT(port.cycle(), before);
  port.step(100);
  EXPECT_GE(port.cycle(), before + 100);
}

TEST(CycleRegisterPort, RefusesBadOffsetsAndConfigsWithoutAModel) {
  auto cfg = tinyConfig();
  SKIP_WITHOUT_MODEL(cfg);
  Dram dram;
  CycleRegisterPort port(cfg, dram);
  try {
    port.read(0x1000);
    ADD_FAILURE() << "offset 0x1000 was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("register read at offset 0x1000: not a 32-bit register of the 4 KiB AXI-Lite window"));
  }
  EXPECT_THROW(port.write(regs::kInsnAddr + 2, 0), Error);
  cfg.hash ^= 1;  // parameters no built-in model was built for
  // Building on demand switched off, with an empty cache: refused.
  const std::string cache = ::testing::TempDir() + "vdla_register_port_no_models";
  std::filesystem::remove_all(cache);
  ::setenv("VDLA_CACHE_DIR", cache.c_str(), 1);
  ::setenv("VDLA_CYCLE_MODEL_BUILD", "0", 1);
  try {
    CycleRegisterPort other(cfg, dram);
    ADD_FAILURE() << "a config without a model was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("has no model for config 'tiny'"));
    EXPECT_THAT(e.what(), HasSubstr("this build has models for "));
  }
  ::unsetenv("VDLA_CYCLE_MODEL_BUILD");
  ::unsetenv("VDLA_CACHE_DIR");
}

// ACC entries loaded from DRAM, ADD 7 by the ALU, stored as OUT bytes; the
// host starts it through the registers and steps the clock until DONE.
struct AddProgram {
  hw::HwConfig cfg;
  uint64_t insn = 0, out = 0;
  std::vector<int32_t> acc;
  static constexpr uint32_t kEntries = 4;

  AddProgram(const hw::HwConfig& c, Dram& dram) : cfg(c) {
    const hw::IsaLayout layout(cfg);
    const uint32_t acc_bytes = cfg.entryBytes(Memory::Acc), out_bytes = cfg.entryBytes(Memory::Output);
    std::mt19937 rng(7);
    acc.resize(kEntries * acc_bytes / 4);
    for (auto& v : acc) v = int32_t(rng());
    const uint64_t acc_addr = dram.allocate(kEntries * acc_bytes, acc_bytes);
    std::memcpy(dram.map(acc_addr, kEntries * acc_bytes), acc.data(), kEntries * acc_bytes);
    std::vector<hw::Uop> uops;
    for (uint32_t i = 0; i < kEntries; ++i) uops.push_back({i, i, 0});
    const std::vector<uint8_t> uop_bytes = hw::encodeMicroOps(layout, uops);
    const uint32_t uop_entry = cfg.entryBytes(Memory::Uop);
    const uint64_t uop_addr = dram.allocate(uop_bytes.size(), uop_entry);
    std::memcpy(dram.map(uop_addr, uop_bytes.size()), uop_bytes.data(), uop_bytes.size());
    out = dram.allocate(kEntries * out_bytes, out_bytes);

    hw::Instruction alu = hw::makeAluImm(hw::AluOp::Add, hw::LoopNest{0, kEntries, 1, 1}, 7);
    alu.push_next = true;
    hw::Instruction store = hw::makeStore(0, out / out_bytes, 1, kEntries, kEntries);
    store.pop_prev = true;
    const std::vector<uint8_t> stream =
        hw::encodeInstructionStream(layout, {hw::makeLoad(Memory::Uop, 0, uop_addr / uop_entry, 1, kEntries, kEntries),
                                             hw::makeLoad(Memory::Acc, 0, acc_addr / acc_bytes, 1, kEntries, kEntries),
                                             alu, store, hw::makeFinish()});
    insn = dram.allocate(stream.size());
    std::memcpy(dram.map(insn, stream.size()), stream.data(), stream.size());
  }
  static constexpr uint32_t kCount = 5;
  std::vector<uint8_t> expected() const {
    std::vector<uint8_t> bytes;
    for (int32_t v : acc) bytes.push_back(uint8_t(uint32_t(v) + 7u));
    return bytes;
  }
};

TEST(CycleRegisterPort, ProgramStartedThroughRegistersMatchesFsim) {
  const auto cfg = tinyConfig();
  SKIP_WITHOUT_MODEL(cfg);
  Dram rtl_dram, fsim_dram;
  const AddProgram prog(cfg, rtl_dram), same(cfg, fsim_dram);
  ASSERT_EQ(prog.out, same.out);
  FunctionalSimulator(cfg, fsim_dram).run(same.insn, AddProgram::kCount);

  CycleRegisterPort port(cfg, rtl_dram);
  port.write(regs::kInsnAddr, uint32_t(prog.insn));
  port.write(regs::kInsnAddrHi, 0);
  port.write(regs::kInsnCount, AddProgram::kCount);
  port.write(regs::kCtrl, regs::kCtrlStart);
  EXPECT_EQ(port.read(regs::kCtrl), regs::kCtrlRunning) << "the program cannot be done a few cycles after START";
  uint32_t ctrl = 0;
  for (int slice = 0; slice < 100 && ((ctrl = port.read(regs::kCtrl)) & regs::kCtrlRunning); ++slice) port.step(256);
  ASSERT_EQ(ctrl, regs::kCtrlDone) << "ERROR_CODE " << port.read(regs::kErrorCode);
  EXPECT_GT(port.read(regs::kCounters + 8 * regs::kCntCycles), 0u);
  EXPECT_EQ(port.read(regs::kCounters + 8 * regs::kCntAluVectors), AddProgram::kEntries);

  const size_t bytes = AddProgram::kEntries * cfg.entryBytes(Memory::Output);
  const std::vector<uint8_t> rtl(rtl_dram.map(prog.out, bytes), rtl_dram.map(prog.out, bytes) + bytes);
  const std::vector<uint8_t> fsim(fsim_dram.map(same.out, bytes), fsim_dram.map(same.out, bytes) + bytes);
  EXPECT_EQ(rtl, fsim);
  EXPECT_EQ(rtl, prog.expected());
}

// A deadlocked run keeps RUNNING until reset(); afterwards the accelerator
// is idle and runs the next program.
TEST(CycleRegisterPort, ResetAbandonsADeadlockedRun) {
  const auto cfg = tinyConfig();
  SKIP_WITHOUT_MODEL(cfg);
  Dram dram;
  const hw::IsaLayout layout(cfg);
  hw::Instruction gemm = hw::makeGemm(hw::LoopNest{0, 0, 1, 1});
  gemm.pop_prev = true;  // no load ever pushes
  const std::vector<uint8_t> stream = hw::encodeInstructionStream(layout, {gemm, hw::makeFinish()});
  const uint64_t stuck = dram.allocate(stream.size());
  std::memcpy(dram.map(stuck, stream.size()), stream.data(), stream.size());
  const AddProgram prog(cfg, dram);

  CycleRegisterPort port(cfg, dram);
  port.write(regs::kInsnAddr, uint32_t(stuck));
  port.write(regs::kInsnCount, 2);
  port.write(regs::kCtrl, regs::kCtrlStart);
  port.step(5000);
  EXPECT_EQ(port.read(regs::kCtrl), regs::kCtrlRunning);
  EXPECT_EQ((port.read(regs::kModuleState) >> 8) & 0xf, regs::kStWaitToken) << "compute waits for a token";
  port.reset();
  EXPECT_EQ(port.read(regs::kCtrl), 0u);
  port.write(regs::kInsnAddr, uint32_t(prog.insn));
  port.write(regs::kInsnCount, AddProgram::kCount);
  port.write(regs::kCtrl, regs::kCtrlStart);
  uint32_t ctrl = 0;
  for (int slice = 0; slice < 100 && ((ctrl = port.read(regs::kCtrl)) & regs::kCtrlRunning); ++slice) port.step(256);
  EXPECT_EQ(ctrl, regs::kCtrlDone);
  const size_t bytes = AddProgram::kEntries * cfg.entryBytes(Memory::Output);
  const uint8_t* out = dram.map(prog.out, bytes);
  EXPECT_EQ(std::vector<uint8_t>(out, out + bytes), prog.expected());
}

}  // namespace
}  // namespace vdla::sim
