// The C simulation's register file, driven directly (no Device): the map of
// docs/hardware.md (hash, clock, read-back, START while running, reset) and
// the refusal of configs it was not built for.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <vector>

#include "vdla/hls/hls_csim.h"
#include "vdla/hw/error.h"
#include "vdla/hw/instruction_builders.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/registers.h"

namespace {

namespace regs = vdla::hw::regs;
using ::testing::HasSubstr;

// One buffer at a fixed physical address.
class OneBuffer : public vdla::hls::CsimDram {
 public:
  static constexpr uint64_t kBase = 0x20000000;
  explicit OneBuffer(size_t bytes) : data_(bytes) {}
  uint8_t* map(uint64_t addr, uint64_t bytes) override {
    if (addr < kBase || addr + bytes > kBase + data_.size()) return nullptr;
    return data_.data() + (addr - kBase);
  }
  std::vector<uint8_t> data_;
};

uint64_t reg64(const vdla::hls::HlsCsim& c, uint32_t lo) {
  return (uint64_t(c.readRegister(lo + 4)) << 32) | c.readRegister(lo);
}

TEST(HlsCsim, ExposesHashAndClockOfItsConfig) {
  for (const std::string& name : vdla::hls::hlsCsimConfigs()) {
    const auto cfg = vdla::hw::loadConfig(name);
    OneBuffer dram(64);
    auto csim = vdla::hls::createHlsCsim(cfg, dram);
    EXPECT_EQ(reg64(*csim, regs::kHashLo), cfg.hash) << name;
    EXPECT_EQ(csim->readRegister(regs::kClockKhz), uint32_t(cfg.clock_mhz * 1000 + 0.5)) << name;
    EXPECT_EQ(csim->readRegister(regs::kCtrl), 0u) << name;
  }
}

TEST(HlsCsim, RunsAProgramThroughTheRegisters) {
  const auto cfg = vdla::hw::loadConfig("tiny");
  const vdla::hw::IsaLayout layout(cfg);
  OneBuffer dram(4096);
  // ALU MOV of an immediate into ACC[0..3], then STORE of OUT[0..3].
  const uint32_t uop_entry = 0;
  std::memcpy(&dram.data_[2048], &uop_entry, 4);
  vdla::hw::Instruction store =
      vdla::hw::makeStore(0, (OneBuffer::kBase + 1024) / cfg.entryBytes(vdla::hw::Memory::Output), 1, 4, 4);
  store.pop_prev = true;
  vdla::hw::Instruction mov = vdla::hw::makeAluImm(vdla::hw::AluOp::Mov, {0, 1, 1, 4, 0, 1, 0, 0}, -3);
  mov.push_next = true;
  const std::vector<vdla::hw::Instruction> program = {
      vdla::hw::makeLoad(vdla::hw::Memory::Uop, 0, (OneBuffer::kBase + 2048) / 4, 1, 1, 1), mov, store,
      vdla::hw::makeFinish()};
  for (size_t i = 0; i < program.size(); ++i) {
    const auto enc = layout.encode(program[i]);
    std::memcpy(&dram.data_[16 * i], enc.data(), 16);
  }
  auto csim = vdla::hls::createHlsCsim(cfg, dram);
  csim->writeRegister(regs::kInsnAddr, uint32_t(OneBuffer::kBase));
  csim->writeRegister(regs::kInsnCount, uint32_t(program.size()));
  EXPECT_EQ(csim->readRegister(regs::kInsnAddr), uint32_t(OneBuffer::kBase));
  EXPECT_EQ(csim->readRegister(regs::kInsnCount), 4u);
  csim->writeRegister(regs::kCtrl, regs::kCtrlStart);
  EXPECT_EQ(csim->readRegister(regs::kCtrl), regs::kCtrlRunning);
  csim->writeRegister(regs::kInsnCount, 99);  // ignored while running, as in the RTL
  EXPECT_EQ(csim->readRegister(regs::kInsnCount), 4u);
  EXPECT_EQ(csim->step(1000), vdla::hls::HlsCsim::Progress::Idle);
  EXPECT_EQ(csim->readRegister(regs::kCtrl), regs::kCtrlDone);
  EXPECT_EQ(csim->readRegister(regs::kErrorCode), 0u);
  EXPECT_EQ(reg64(*csim, regs::kCounters + 8 * regs::kCntAluVectors), 4u);
  EXPECT_GT(reg64(*csim, regs::kCounters + 8 * regs::kCntCycles), 0u);
  // OUT = low byte of -3 in every lane of entries 0..3 (batch 2 x block_out 8).
  for (int b = 0; b < 4 * 16; ++b) EXPECT_EQ(dram.data_[1024 + size_t(b)], 0xfd) << "byte " << b;
  EXPECT_EQ(dram.data_[1024 + 64], 0);

  // An error sets ERROR and the code/module/index registers; reset clears them.
  csim->writeRegister(regs::kInsnCount, 0);
  csim->writeRegister(regs::kCtrl, regs::kCtrlStart);
  csim->step(10);
  EXPECT_EQ(csim->readRegister(regs::kCtrl), regs::kCtrlError);
  EXPECT_EQ(csim->readRegister(regs::kErrorCode), regs::kErrEmpty);
  csim->reset();
  EXPECT_EQ(csim->readRegister(regs::kCtrl), 0u);
  EXPECT_EQ(csim->readRegister(regs::kErrorCode), 0u);
}

TEST(HlsCsim, RefusesAConfigItWasNotBuiltFrom) {
  OneBuffer dram(64);
  auto cfg = vdla::hw::loadConfig("tiny");
  cfg.hash ^= 1;
  try {
    vdla::hls::createHlsCsim(cfg, dram);
    FAIL() << "a config with another hash must be refused";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("HLS C simulation of config 'tiny' was built from configuration hash"));
  }
  cfg = vdla::hw::loadConfig("tiny");
  cfg.name = "custom";
  try {
    vdla::hls::createHlsCsim(cfg, dram);
    FAIL() << "an unknown config must be refused";
  } catch (const vdla::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no HLS C simulation for config 'custom'"));
  }
}

}  // namespace
