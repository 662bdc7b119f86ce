#include "vdla/explore/design_space.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "vdla/hw/config.h"
#include "vdla/hw/error.h"

namespace vdla::explore {
namespace {

std::string errorOf(const std::string& text) {
  try {
    parseDesignSpace(text, "space.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(DesignSpaceTest, ParsesEveryField) {
  const DesignSpace s = parseDesignSpace(R"({"base": "zcu104", "gemm": {"batch": [1], "block_in": [16, 32],
      "block_out": [32]}, "buffers_kib": {"input": [32], "weight": [256, 512], "accumulator": [128], "uop": [16]},
      "axi_bits": [64, 128], "clock_mhz": [250, 287.5], "latency_hiding": [true, false]})",
                                         "space.json");
  EXPECT_EQ(s.base, "zcu104");
  EXPECT_EQ(s.block_in, (std::vector<uint32_t>{16, 32}));
  EXPECT_EQ(s.weight_kib, (std::vector<uint64_t>{256, 512}));
  EXPECT_EQ(s.clock_mhz, (std::vector<double>{250, 287.5}));
  EXPECT_EQ(s.latency_hiding, (std::vector<bool>{true, false}));
  // The JSON form reads back to the same space.
  const DesignSpace again = parseDesignSpace(designSpaceToJson(s), "again");
  EXPECT_EQ(designSpaceToJson(again), designSpaceToJson(s));
}

TEST(DesignSpaceTest, ErrorsNameTheFileAndTheField) {
  EXPECT_NE(errorOf(R"({"gemm": {"blok_in": [16]}})").find("space.json: field 'gemm.blok_in' is not a known field"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"axi_bits": []})").find("field 'axi_bits': must be a non-empty list"), std::string::npos);
  EXPECT_NE(errorOf(R"({"axi_bits": ["wide"]})").find("field 'axi_bits': element \"wide\" has the wrong type"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"latency_hiding": [1]})").find("field 'latency_hiding'"), std::string::npos);
  EXPECT_NE(errorOf("{").find("space.json: invalid JSON"), std::string::npos);
  EXPECT_NE(errorOf(R"({"clocks": [1]})").find("field 'clocks' is not a known field"), std::string::npos);
}

TEST(DesignSpaceTest, EnumeratesTheProductOnTheBase) {
  DesignSpace s;
  s.base = "pynq";
  s.block_out = {16, 32};
  s.weight_kib = {64, 128};
  s.latency_hiding = {true, false};
  std::vector<RefusedPoint> refused;
  const std::vector<DesignPoint> points = enumerateDesignSpace(s, &refused);
  ASSERT_EQ(points.size() + refused.size() * 2, 8u);
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  for (const DesignPoint& p : points) {
    EXPECT_EQ(p.config.part, pynq.part);
    EXPECT_EQ(p.config.block_in, 16u);
    EXPECT_EQ(p.config.acc_bytes, pynq.acc_bytes);
    // OUT follows ACC: one int8 entry per int32 entry.
    EXPECT_EQ(p.config.depth(hw::Memory::Output), p.config.depth(hw::Memory::Acc));
  }
  // The base's own values, as a point, hash like the shipped config apart from the name.
  bool found = false;
  for (const DesignPoint& p : points)
    if (p.config.block_out == 16 && p.config.weight_bytes == 128 * 1024 && p.latency_hiding) {
      EXPECT_EQ(p.config.hash, pynq.hash);
      EXPECT_EQ(p.config.name, "b1-16x16-i64-w128-a128-u32-axi64-150mhz-dw5-dr");
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(DesignSpaceTest, RefusedCombinationsCarryTheValidatorsReason) {
  DesignSpace s;
  s.base = "pynq";
  s.acc_kib = {128, 1024};  // 16384 ACC entries: the instruction fields do not fit 128 bits
  std::vector<RefusedPoint> refused;
  const std::vector<DesignPoint> points = enumerateDesignSpace(s, &refused);
  ASSERT_EQ(points.size(), 1u);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].name, "b1-16x16-i64-w128-a1024-u32-axi64-150mhz-dw5-dr");
  EXPECT_NE(refused[0].reason.find("bits but instructions are 128 bits"), std::string::npos) << refused[0].reason;
}

// Unlisted, acc_dual_read is the base's; listed, each point comes with and
// without it, and only the extension and the name tell them apart.
TEST(DesignSpaceTest, AccDualReadIsTheBasesOrSwept) {
  DesignSpace s;
  s.base = "pynq";
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  std::vector<DesignPoint> points = enumerateDesignSpace(s, nullptr);
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].config.acc_dual_read, pynq.acc_dual_read);
  s.acc_dual_read = {false, true};
  points = enumerateDesignSpace(s, nullptr);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_FALSE(points[0].config.acc_dual_read);
  EXPECT_TRUE(points[1].config.acc_dual_read);
  EXPECT_EQ(points[0].config.name + "-dr", points[1].config.name);
  EXPECT_NE(points[0].config.hash, points[1].config.hash);
  hw::HwConfig on = points[1].config;  // all else equal
  on.acc_dual_read = false;
  on.name = points[0].config.name;
  on.hash = points[0].config.hash;
  EXPECT_EQ(hw::configToJson(on), hw::configToJson(points[0].config));
  EXPECT_EQ(parseDesignSpace(designSpaceToJson(s), "x").acc_dual_read, s.acc_dual_read);
  EXPECT_THROW(parseDesignSpace(R"({"acc_dual_read": [1]})", "x"), Error);
}

// UltraRAM placements are swept like the other fields (each value a set of
// buffers, named by their initials), and the base's stays otherwise.
TEST(DesignSpaceTest, UltraRamIsTheBasesOrSwept) {
  DesignSpace s = parseDesignSpace(R"({"base": "zcu104", "ultraram": [[], ["input", "accumulator"]]})", "x");
  ASSERT_EQ(s.ultraram.size(), 2u);
  std::vector<DesignPoint> points = enumerateDesignSpace(s, nullptr);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].config.ultraram, 0u);
  EXPECT_TRUE(points[1].config.inUltraRam(hw::Memory::Input));
  EXPECT_TRUE(points[1].config.inUltraRam(hw::Memory::Acc));
  EXPECT_FALSE(points[1].config.inUltraRam(hw::Memory::Output));
  EXPECT_EQ(points[0].config.name + "-uria", points[1].config.name);
  EXPECT_EQ(parseDesignSpace(designSpaceToJson(s), "x").ultraram, s.ultraram);
  // A name the validator does not know is refused with its reason.
  s.ultraram = {{"acc"}};
  std::vector<RefusedPoint> refused;
  EXPECT_TRUE(enumerateDesignSpace(s, &refused).empty());
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].reason.find("ultraram[0]"), std::string::npos) << refused[0].reason;
  EXPECT_THROW(parseDesignSpace(R"({"ultraram": ["input"]})", "x"), Error);
  EXPECT_THROW(parseDesignSpace(R"({"ultraram": [[1]]})", "x"), Error);
}

// Unlisted, the base's DWGEMM window goes where the array can hold it
// (block_in at least block_out, a pair per tap); listed, it is swept like
// any field.
TEST(DesignSpaceTest, DepthwiseWindowFollowsTheArray) {
  DesignSpace s;
  s.base = "pynq";
  s.block_in = {4, 16};
  s.block_out = {4, 16};
  s.axi_bits = {32};  // a 1x4 OUT entry is 32 bits
  s.input_kib = {4};  // few enough entries for 4-wide blocks' index fields
  s.weight_kib = {4};
  s.acc_kib = {16};
  std::vector<RefusedPoint> refused;
  std::vector<DesignPoint> points = enumerateDesignSpace(s, &refused);
  ASSERT_EQ(points.size(), 4u) << (refused.empty() ? "" : refused[0].reason);
  for (const DesignPoint& p : points) {
    const uint32_t expected = p.config.block_in < p.config.block_out ? 0 : (p.config.block_out == 4 ? 2 : 5);
    EXPECT_EQ(p.config.depthwise_taps, expected) << p.config.name;
    // pynq's STORE INP goes with square arrays only.
    EXPECT_EQ(p.config.inp_writeback, p.config.block_in == p.config.block_out) << p.config.name;
  }
  s.block_in = {16};
  s.block_out = {16, 32};
  s.depthwise_taps = {0, 3};
  points = enumerateDesignSpace(s, &refused);
  ASSERT_EQ(points.size(), 3u);  // 16x32 with 3 taps is refused
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].name, "b1-16x32-i4-w4-a16-u32-axi32-150mhz-dw3-dr");
  EXPECT_NE(refused[0].reason.find("block_in >= gemm.block_out"), std::string::npos) << refused[0].reason;
  EXPECT_EQ(parseDesignSpace(designSpaceToJson(s), "x").depthwise_taps, s.depthwise_taps);
}

// DWGEMM's encoding has no wgt_in but taps, stride and (block_in > block_out)
// lane_block: with few weight entries and a short ALU immediate it is the
// longest instruction. The base's window then goes rather than the point.
TEST(DesignSpaceTest, DefaultWindowGoesWhereItsEncodingDoesNotFit) {
  const std::string base_path = ::testing::TempDir() + "/dw_base.json";
  {
    nlohmann::json j = nlohmann::json::parse(hw::configToJson(hw::loadConfig("ultra96")));
    j.erase("derived");
    j["name"] = "dw_base";
    j["isa"]["alu_imm_bits"] = 2;
    j["extensions"] = {{"depthwise_taps", 2}};
    std::ofstream(base_path) << j.dump();
  }
  DesignSpace s;
  s.base = base_path;
  s.input_kib = {1024};
  s.weight_kib = {4};
  s.acc_kib = {256};
  s.uop_kib = {128};
  s.axi_bits = {32};
  std::vector<RefusedPoint> refused;
  const std::vector<DesignPoint> points = enumerateDesignSpace(s, &refused);
  ASSERT_EQ(points.size(), 1u) << (refused.empty() ? "" : refused[0].reason);
  EXPECT_EQ(points[0].config.depthwise_taps, 0u);
  EXPECT_EQ(points[0].config.name.find("-dw"), std::string::npos) << points[0].config.name;
  // Listed, the window is applied as given and the validator names DWGEMM.
  s.depthwise_taps = {2};
  EXPECT_TRUE(enumerateDesignSpace(s, &refused).empty());
  ASSERT_FALSE(refused.empty());
  EXPECT_NE(refused.back().reason.find("DWGEMM needs"), std::string::npos) << refused.back().reason;
}

// alu_bias_clear's flag is the ALU's last bit: a point whose deeper buffers
// leave none for it keeps the rest of the base and goes without the flag.
TEST(DesignSpaceTest, BiasClearStaysWhereTheAluEncodingHasABitForIt) {
  hw::HwConfig base = hw::loadConfig("pynq");
  ASSERT_TRUE(base.alu_bias_clear);
  // 17 immediate bits and a 64 KiB accumulator: 125 ALU bits with the flag;
  // at 128 KiB (one index bit more in four fields) 129 with it, 128 without.
  nlohmann::json j = nlohmann::json::parse(hw::configToJson(base));
  j.erase("derived");
  j["name"] = "pynq-imm17";
  j["isa"]["alu_imm_bits"] = 17;
  j["buffers_kib"]["accumulator"] = 64;
  j["buffers_kib"]["output"] = 16;
  const std::string path = ::testing::TempDir() + "/pynq-imm17.json";
  std::ofstream(path) << j.dump();
  DesignSpace s;
  s.base = path;
  s.acc_kib = {64, 128};
  std::vector<RefusedPoint> refused;
  const std::vector<DesignPoint> points = enumerateDesignSpace(s, &refused);
  ASSERT_EQ(points.size(), 2u) << (refused.empty() ? "" : refused[0].reason);
  EXPECT_TRUE(points[0].config.alu_bias_clear) << points[0].config.name;
  EXPECT_EQ(points[0].config.depthwise_taps, base.depthwise_taps);
  EXPECT_FALSE(points[1].config.alu_bias_clear) << points[1].config.name;
  EXPECT_EQ(points[1].config.depthwise_taps, base.depthwise_taps);
  EXPECT_TRUE(points[1].config.fused_requant);
  EXPECT_NE(points[1].config.description.find("without alu_bias_clear"), std::string::npos);
}

TEST(DesignSpaceTest, ClockCapMovesFasterPointsToRefused) {
  DesignSpace s;
  s.base = "pynq";
  s.clock_mhz = {100, 150, 200};
  s.latency_hiding = {true, false};
  std::vector<RefusedPoint> refused;
  std::vector<DesignPoint> points = enumerateDesignSpace(s, &refused);
  ASSERT_EQ(points.size(), 6u);
  applyClockCap(points, 150, "the DPU's clock", &refused);
  ASSERT_EQ(points.size(), 4u);
  ASSERT_EQ(refused.size(), 1u);  // one entry per config, not per latency-hiding mode
  EXPECT_NE(refused[0].reason.find("clock 200 MHz is above the cap of 150 MHz (the DPU's clock)"), std::string::npos);
}

}  // namespace
}  // namespace vdla::explore
