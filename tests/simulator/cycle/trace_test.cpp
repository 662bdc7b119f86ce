// Timeline traces and waveforms are written when asked for and describe the run.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cycle_test_util.h"

namespace vdla::cycletest {
namespace {

TEST(CycleTrace, TimelineAndWavesDescribeTheRun) {
  const std::string trace = ::testing::TempDir() + "cycle_trace.json";
  const std::string waves = ::testing::TempDir() + "cycle_waves.vcd";
  driver::DeviceOptions options;
  options.trace_path = trace;
  options.waves_path = waves;
  DualRig r("tiny", options);
  uint64_t acc = r.buffer(4 * r.cfg.entryBytes(Memory::Acc));
  uint64_t uop = r.uops({{0, 0, 0}});
  uint64_t out = r.buffer(4 * r.cfg.entryBytes(Memory::Output));
  Instruction alu = hw::makeAluImm(AluOp::Add, hw::LoopNest{0, 1, 1, 4, 0, 1}, 3);
  alu.push_next = true;
  Instruction st = hw::makeStore(0, r.entryOf(out, Memory::Output), 1, 4, 4);
  st.pop_prev = true;
  auto o = r.run({hw::makeLoad(Memory::Acc, 0, r.entryOf(acc, Memory::Acc), 1, 4, 4),
                  hw::makeLoad(Memory::Uop, 0, r.entryOf(uop, Memory::Uop), 1, 1, 1), alu, st, hw::makeFinish()});
  ASSERT_TRUE(o.cycle.ok()) << o.cycle.message;

  std::ifstream in(trace);
  ASSERT_TRUE(in.good());
  nlohmann::json doc = nlohmann::json::parse(in);
  bool saw_alu = false, saw_store = false;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    EXPECT_GT(e["dur"].get<double>(), 0);
    if (e["name"] == "ALU ADD" && e["tid"] == 2) saw_alu = e["args"]["index"] == 2;
    if (e["name"] == "STORE OUT" && e["tid"] == 3) saw_store = true;
  }
  EXPECT_TRUE(saw_alu);
  EXPECT_TRUE(saw_store);

  std::ifstream vcd(waves);
  std::stringstream text;
  text << vcd.rdbuf();
  EXPECT_NE(text.str().find("$enddefinitions"), std::string::npos);
  EXPECT_NE(text.str().find("gemm_fire"), std::string::npos);
  std::remove(trace.c_str());
  std::remove(waves.c_str());
}

}  // namespace
}  // namespace vdla::cycletest
