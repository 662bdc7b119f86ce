// The C++ mirror of the RTL status encodings (simulator/cycle/src/rtl_status.h)
// must agree with vdla_hw/rtl/vdla_status_pkg.sv; this parses the package.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "rtl_status.h"

namespace {

std::map<std::string, unsigned> packageValues() {
  std::ifstream in(VDLA_RTL_STATUS_PKG);
  std::stringstream text;
  text << in.rdbuf();
  std::map<std::string, unsigned> values;
  std::regex re(R"(localparam logic \[\d+:0\] (\w+)\s*=\s*\d+'d(\d+);)");
  const std::string s = text.str();
  for (std::sregex_iterator it(s.begin(), s.end(), re), end; it != end; ++it)
    values[(*it)[1]] = unsigned(std::stoul((*it)[2]));
  return values;
}

TEST(RtlStatus, ErrorCodesAndStatesMatchThePackage) {
  auto v = packageValues();
  ASSERT_GT(v.size(), 20u);
  using namespace vdla::sim::rtl;
  EXPECT_EQ(v["E_OPCODE"], kOpcode);
  EXPECT_EQ(v["E_MEMORY"], kMemory);
  EXPECT_EQ(v["E_ALU_OP"], kAluOp);
  EXPECT_EQ(v["E_STRAY_BITS"], kStrayBits);
  EXPECT_EQ(v["E_IMM"], kImm);
  EXPECT_EQ(v["E_FLAGS"], kFlags);
  EXPECT_EQ(v["E_PAD"], kPad);
  EXPECT_EQ(v["E_FINISH_NOT_LAST"], kFinishNotLast);
  EXPECT_EQ(v["E_NO_FINISH"], kNoFinish);
  EXPECT_EQ(v["E_EMPTY"], kEmpty);
  EXPECT_EQ(v["E_SRAM_RANGE"], kSramRange);
  EXPECT_EQ(v["E_UOP_RANGE"], kUopRange);
  EXPECT_EQ(v["E_DST_RANGE"], kDstRange);
  EXPECT_EQ(v["E_SRC_RANGE"], kSrcRange);
  EXPECT_EQ(v["E_WGT_RANGE"], kWgtRange);
  EXPECT_EQ(v["E_AXI_READ"], kAxiRead);
  EXPECT_EQ(v["E_AXI_WRITE"], kAxiWrite);
  EXPECT_EQ(v["E_ADDR_OVERFLOW"], kAddrOverflow);
  EXPECT_EQ(v["E_TOKENS_LEFT"], kTokensLeft);
  EXPECT_EQ(v["S_IDLE"], kIdle);
  EXPECT_EQ(v["S_WAIT_TOKEN"], kWaitToken);
  EXPECT_EQ(v["S_WAIT_ROOM"], kWaitRoom);
  EXPECT_EQ(v["S_BUSY"], kBusy);
  EXPECT_EQ(v["S_DECODE"], kDecode);
  EXPECT_EQ(v["S_FETCH_WAIT_DRAM"], kFetchWaitDram);
  EXPECT_EQ(v["S_FETCH_WAIT_QUEUE"], kFetchWaitQueue);
  EXPECT_EQ(v["S_FETCH_DONE"], kFetchDone);
}

}  // namespace
