// The host interface (vdla/hw/interface_table.h) as the two hardware
// descriptions implement it: the RTL (through its real AXI-Lite slave) and
// the HLS C++ (its C simulation) hold every register of the table at its
// offset, answer an offset outside the table alike, and report the same
// error code, instruction index and info, and the same counters, for the same
// programs. With the drivers and the cycle harness taking their constants
// from the same table, this is what keeps all four in agreement.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "csim_window_accelerator.h"
#include "rtl_window_accelerator.h"
#include "vdla/hw/assembly.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/hw/registers.h"
#include "vdla/hw/run_status.h"
#include "zynq_window_bridge.h"

namespace vdla::zynqtest {
namespace {

namespace regs = hw::regs;

struct Registers {
  uint32_t ctrl, code, index, info, count;
  uint64_t gemm_uops, alu_vectors;
};

// Runs `program` (assembly) on `acc` through its registers alone, as a
// driver would, and returns the status registers at the end.
Registers run(WindowAccelerator& acc, uint8_t* dma, const hw::HwConfig& cfg, const std::string& program) {
  const std::vector<hw::Instruction> insns = hw::assemble(program, hw::IsaLayout(cfg), "test program");
  const std::vector<uint8_t> bytes = hw::encodeInstructionStream(hw::IsaLayout(cfg), insns);
  std::memcpy(dma, bytes.data(), bytes.size());
  acc.writeRegister(regs::kInsnAddr, uint32_t(kDmaPhys));
  acc.writeRegister(regs::kInsnAddrHi, 0);
  acc.writeRegister(regs::kInsnCount, uint32_t(insns.size()));
  acc.writeRegister(regs::kCtrl, regs::kCtrlStart);
  for (int slice = 0; slice < 2000 && (acc.readRegister(regs::kCtrl) & regs::kCtrlRunning); ++slice) acc.advance();
  auto counter = [&](uint32_t i) {
    return (uint64_t(acc.readRegister(regs::counterOffset(i) + 4)) << 32) | acc.readRegister(regs::counterOffset(i));
  };
  Registers r{acc.readRegister(regs::kCtrl),       acc.readRegister(regs::kErrorCode),
              acc.readRegister(regs::kErrorIndex), acc.readRegister(regs::kErrorInfo),
              acc.readRegister(regs::kInsnCount),  counter(regs::kCntGemmUops),
              counter(regs::kCntAluVectors)};
  acc.reset();
  return r;
}

class RegisterInterface : public ::testing::Test {
 protected:
  void SetUp() override {
    cfg_ = hw::loadConfig("tiny");
    if (!sim::cycleSimSupports(cfg_)) GTEST_SKIP() << "no cycle-accurate model of tiny in this build";
    rtl_dma_.assign(kDmaSize, 0);
    hls_dma_.assign(kDmaSize, 0);
    rtl_ = makeRtlAccelerator(cfg_, rtl_dma_.data());
    hls_ = makeCsimAccelerator(cfg_, hls_dma_.data());
  }
  hw::HwConfig cfg_;
  std::vector<uint8_t> rtl_dma_, hls_dma_;
  std::unique_ptr<WindowAccelerator> rtl_, hls_;
};

TEST_F(RegisterInterface, EveryRegisterOfTheTableIsMappedAlike) {
  int registers = 0;
#define VDLA_HW_X(name, sv, offset, access, meaning)                                            \
  EXPECT_NE(rtl_->readRegister(offset), regs::kUnmappedRead) << "RTL has no register " #sv;     \
  EXPECT_NE(hls_->readRegister(offset), regs::kUnmappedRead) << "HLS C++ has no register " #sv; \
  ++registers;
  VDLA_HW_REGISTERS(VDLA_HW_X)
#undef VDLA_HW_X
  EXPECT_EQ(registers, 18);
  // Identity registers hold the same values.
  for (uint32_t offset : {regs::kHashLo, regs::kHashHi, regs::kClockKhz, regs::kCtrl})
    EXPECT_EQ(rtl_->readRegister(offset), hls_->readRegister(offset)) << "offset " << offset;
  // An offset between the registers and the counters, and one past the last counter.
  for (uint32_t offset : {regs::kClockKhz + 4, regs::kCounters - 4, regs::kSpanBytes}) {
    EXPECT_EQ(rtl_->readRegister(offset), regs::kUnmappedRead) << "offset " << offset;
    EXPECT_EQ(hls_->readRegister(offset), regs::kUnmappedRead) << "offset " << offset;
  }
}

TEST_F(RegisterInterface, ErrorsAndCountersAgree) {
  // One program per kind of run: a success with GEMM and ALU work, and errors
  // that carry an index and an info word.
  struct Case {
    std::string program;
    uint32_t code;  // what both must report
  };
  // The micro-op is DMA word 1024: zero, so dst, src and wgt are 0.
  const std::string uop = "LOAD UOP sram=0 dram=" + std::to_string((kDmaPhys + 4096) / 4) + " y=1 x=1 stride=1\n";
  const Case cases[] = {
      {uop + "GEMM uops=0:1 iters=2,3 dst=0,0 src=0,0 wgt=0,0 reset\n"
             "GEMM uops=0:1 iters=4,1 dst=0,0 src=0,0 wgt=0,0\nALU ADD uops=0:1 iters=3,5 dst=0,0 src=0,0 "
             "imm=1\nFINISH\n",
       regs::kErrNone},
      {"LOAD INP sram=127 dram=0 y=1 x=2 stride=2\nFINISH\n", regs::kErrSramRange},
      {"LOAD INP sram=0 dram=0 y=0 x=1 stride=1 push_next\nFINISH\n", regs::kErrTokensLeft},
      {uop + "GEMM uops=0:1 iters=3,1 dst=0,0 src=120,0 wgt=0,0\nFINISH\n", regs::kErrSrcRange},
      {"FINISH\nFINISH\n", regs::kErrFinishNotLast},
  };
  for (const auto& [program, code] : cases) {
    SCOPED_TRACE(program);
    const Registers r = run(*rtl_, rtl_dma_.data(), cfg_, program);
    const Registers h = run(*hls_, hls_dma_.data(), cfg_, program);
    EXPECT_EQ(r.code & 0xff, code) << regs::errorName(r.code & 0xff);
    EXPECT_EQ(r.ctrl, h.ctrl);
    EXPECT_EQ(r.code, h.code) << regs::errorName(r.code & 0xff) << " vs " << regs::errorName(h.code & 0xff);
    EXPECT_EQ(r.index, h.index);
    EXPECT_EQ(r.info, h.info);
    EXPECT_EQ(r.count, h.count);
    EXPECT_EQ(r.gemm_uops, h.gemm_uops);
    EXPECT_EQ(r.alu_vectors, h.alu_vectors);
    if (r.ctrl & regs::kCtrlError) {
      // One decoder for both, so the same registers give the same words.
      EXPECT_EQ(hw::describeRunError(r.code, r.index, r.info, r.count, nullptr, cfg_),
                hw::describeRunError(h.code, h.index, h.info, h.count, nullptr, cfg_));
    }
  }
}

}  // namespace
}  // namespace vdla::zynqtest
