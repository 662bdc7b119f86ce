// Tests of vdla_hw/config: parsing, validation, derived quantities and the hash.
#include "vdla/hw/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "hw_test_util.h"
#include "vdla/hw/error.h"

namespace vdla::hw {
namespace {

using nlohmann::json;
using testing::errorOf;

json pynqJson() {
  const std::string* text = builtinConfigText("pynq");
  EXPECT_NE(text, nullptr);
  return json::parse(*text);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- shipped configs ----

TEST(ConfigTest, BuiltinNamesAreExactlyTheShippedFiles) {
  EXPECT_EQ(builtinConfigNames(), (std::vector<std::string>{"pynq", "pynq-classic", "tiny", "ultra96", "zcu104"}));
  EXPECT_EQ(builtinConfigText("nonexistent"), nullptr);
  EXPECT_STREQ(kDefaultConfigName, "pynq");
}

TEST(ConfigTest, EveryShippedConfigParsesAndMatchesItsFile) {
  for (const std::string& name : builtinConfigNames()) {
    SCOPED_TRACE(name);
    const std::string* text = builtinConfigText(name);
    ASSERT_NE(text, nullptr);
    // The built-in text is the JSON file, byte for byte.
    const std::string path = std::string(VDLA_HW_CONFIG_DIR) + "/" + name + ".json";
    EXPECT_EQ(*text, readFile(path));
    HwConfig by_name = loadConfig(name);
    HwConfig by_path = loadConfig(path);
    EXPECT_EQ(by_name.name, name);
    EXPECT_EQ(by_path.name, name);
    EXPECT_EQ(by_name.hash, by_path.hash);
    EXPECT_NE(by_name.hash, 0u);
    for (Memory m : {Memory::Uop, Memory::Weight, Memory::Input, Memory::Acc, Memory::Output}) {
      EXPECT_GT(by_name.depth(m), 0u) << memoryName(m);
      EXPECT_EQ(uint64_t(by_name.depth(m)) * by_name.entryBytes(m), m == Memory::Uop      ? by_name.uop_bytes
                                                                    : m == Memory::Weight ? by_name.weight_bytes
                                                                    : m == Memory::Input  ? by_name.input_bytes
                                                                    : m == Memory::Acc    ? by_name.acc_bytes
                                                                                          : by_name.output_bytes)
          << memoryName(m);
    }
    EXPECT_EQ(by_name.depth(Memory::Output), by_name.depth(Memory::Acc));
  }
}

TEST(ConfigTest, PynqHasTheValuesOfItsJson) {
  HwConfig c = loadConfig("pynq");
  EXPECT_EQ(c.name, "pynq");
  EXPECT_NE(c.description.find("PYNQ"), std::string::npos);
  EXPECT_EQ(c.board, "pynq-z1");
  EXPECT_EQ(c.part, "xc7z020clg400-1");
  EXPECT_DOUBLE_EQ(c.clock_mhz, 150.0);
  EXPECT_EQ(c.batch, 1u);
  EXPECT_EQ(c.block_in, 16u);
  EXPECT_EQ(c.block_out, 16u);
  EXPECT_EQ(c.input_bits, 8u);
  EXPECT_EQ(c.weight_bits, 8u);
  EXPECT_EQ(c.acc_bits, 32u);
  EXPECT_EQ(c.output_bits, 8u);
  EXPECT_EQ(c.uop_bytes, 32u * 1024);
  EXPECT_EQ(c.input_bytes, 64u * 1024);
  EXPECT_EQ(c.weight_bytes, 128u * 1024);
  EXPECT_EQ(c.acc_bytes, 128u * 1024);
  EXPECT_EQ(c.output_bytes, 32u * 1024);
  EXPECT_EQ(c.axi_data_bits, 64u);
  EXPECT_EQ(c.command_queue_depth, 128u);
  EXPECT_EQ(c.token_queue_depth, 32u);
  EXPECT_EQ(c.dram_addr_bits, 32u);
  EXPECT_EQ(c.xfer_size_bits, 16u);
  EXPECT_EQ(c.pad_bits, 4u);
  EXPECT_EQ(c.loop_iter_bits, 14u);
  EXPECT_EQ(c.alu_imm_bits, 16u);

  EXPECT_EQ(c.depth(Memory::Uop), 8192u);
  EXPECT_EQ(c.depth(Memory::Input), 4096u);
  EXPECT_EQ(c.depth(Memory::Weight), 512u);
  EXPECT_EQ(c.depth(Memory::Acc), 2048u);
  EXPECT_EQ(c.depth(Memory::Output), 2048u);
  EXPECT_EQ(c.depth(Memory::Acc8), 2048u);  // shares the accumulator memory

  EXPECT_EQ(c.entryBytes(Memory::Uop), 4u);
  EXPECT_EQ(c.entryBytes(Memory::Input), 16u);
  EXPECT_EQ(c.entryBytes(Memory::Weight), 256u);
  EXPECT_EQ(c.entryBytes(Memory::Acc), 64u);
  EXPECT_EQ(c.entryBytes(Memory::Output), 16u);
  EXPECT_EQ(c.entryBytes(Memory::Acc8), 16u);  // batch * block_out int8 elements

  EXPECT_EQ(c.indexBits(Memory::Uop), 13u);
  EXPECT_EQ(c.indexBits(Memory::Input), 12u);
  EXPECT_EQ(c.indexBits(Memory::Weight), 9u);
  EXPECT_EQ(c.indexBits(Memory::Acc), 11u);
  EXPECT_EQ(c.indexBits(Memory::Output), 11u);
  EXPECT_EQ(c.macsPerCycle(), 256u);
}

TEST(ConfigTest, TinyDerivedQuantities) {
  // batch 2, 4-in, 8-out: entries are not square, so a swapped formula shows.
  HwConfig c = loadConfig("tiny");
  EXPECT_EQ(c.entryBytes(Memory::Input), 2u * 4);
  EXPECT_EQ(c.entryBytes(Memory::Weight), 8u * 4);
  EXPECT_EQ(c.entryBytes(Memory::Acc), 2u * 8 * 4);
  EXPECT_EQ(c.entryBytes(Memory::Output), 2u * 8);
  EXPECT_EQ(c.entryBytes(Memory::Acc8), 2u * 8);
  EXPECT_EQ(c.depth(Memory::Uop), 256u);
  EXPECT_EQ(c.depth(Memory::Input), 128u);
  EXPECT_EQ(c.depth(Memory::Weight), 64u);
  EXPECT_EQ(c.depth(Memory::Acc), 64u);
  EXPECT_EQ(c.depth(Memory::Output), 64u);
  EXPECT_EQ(c.indexBits(Memory::Uop), 8u);
  EXPECT_EQ(c.indexBits(Memory::Input), 7u);
  EXPECT_EQ(c.indexBits(Memory::Weight), 6u);
  EXPECT_EQ(c.macsPerCycle(), 64u);
}

TEST(ConfigTest, MemoryNames) {
  EXPECT_STREQ(memoryName(Memory::Uop), "UOP");
  EXPECT_STREQ(memoryName(Memory::Weight), "WGT");
  EXPECT_STREQ(memoryName(Memory::Input), "INP");
  EXPECT_STREQ(memoryName(Memory::Acc), "ACC");
  EXPECT_STREQ(memoryName(Memory::Output), "OUT");
  EXPECT_STREQ(memoryName(Memory::Acc8), "ACC8");
}

// ---- hash ----

TEST(ConfigHashTest, StableAcrossParsesAndFormatting) {
  const std::string text = *builtinConfigText("pynq");
  HwConfig a = parseConfig(text, "a");
  HwConfig b = parseConfig(text, "b");
  EXPECT_EQ(a.hash, b.hash);
  // Whitespace and key order are not part of the canonical form.
  HwConfig c = parseConfig(pynqJson().dump(), "compact");
  HwConfig d = parseConfig(pynqJson().dump(7), "indented");
  EXPECT_EQ(a.hash, c.hash);
  EXPECT_EQ(a.hash, d.hash);
  // An integral clock written as a float is the same value.
  json j = pynqJson();
  j["target"]["clock_mhz"] = 150.0;
  EXPECT_EQ(parseConfig(j.dump(), "float").hash, a.hash);
}

TEST(ConfigHashTest, HexIsSixteenLowercaseDigitsOfTheHash) {
  HwConfig c = loadConfig("pynq");
  const std::string hex = c.hashHex();
  ASSERT_TRUE(std::regex_match(hex, std::regex("[0-9a-f]{16}"))) << hex;
  EXPECT_EQ(std::stoull(hex, nullptr, 16), c.hash);
  HwConfig z;
  z.hash = 0x1a;
  EXPECT_EQ(z.hashHex(), "000000000000001a");
}

TEST(ConfigHashTest, DiffersBetweenShippedConfigs) {
  std::set<uint64_t> hashes;
  for (const std::string& name : builtinConfigNames()) hashes.insert(loadConfig(name).hash);
  EXPECT_EQ(hashes.size(), builtinConfigNames().size());
}

TEST(ConfigHashTest, IgnoresNameAndDescription) {
  const uint64_t base = loadConfig("pynq").hash;
  json j = pynqJson();
  j["name"] = "renamed";
  j["description"] = "a completely different description";
  HwConfig c = parseConfig(j.dump(), "renamed.json");
  EXPECT_EQ(c.name, "renamed");
  EXPECT_EQ(c.description, "a completely different description");
  EXPECT_EQ(c.hash, base);
  j.erase("description");  // description is optional
  HwConfig d = parseConfig(j.dump(), "nodesc.json");
  EXPECT_EQ(d.description, "");
  EXPECT_EQ(d.hash, base);
}

TEST(ConfigHashTest, ChangesWithEveryHardwareField) {
  struct Change {
    const char* what;
    std::function<void(json&)> apply;
  };
  const std::vector<Change> changes = {
      {"target.board", [](json& j) { j["target"]["board"] = "other-board"; }},
      {"target.part", [](json& j) { j["target"]["part"] = "other-part"; }},
      {"target.clock_mhz", [](json& j) { j["target"]["clock_mhz"] = 100; }},
      {"target.clock_mhz fractional", [](json& j) { j["target"]["clock_mhz"] = 150.5; }},
      {"gemm.batch", [](json& j) { j["gemm"]["batch"] = 2; }},
      // (without DWGEMM, which a block_out above block_in cannot hold)
      {"gemm.block_in",
       [](json& j) {
         j["gemm"]["block_in"] = 32;
         j["extensions"].erase("depthwise_taps");
         j["extensions"].erase("inp_writeback");
       }},
      {"gemm.block_out",
       [](json& j) {
         j["gemm"]["block_out"] = 32;
         j["extensions"].erase("depthwise_taps");
         j["extensions"].erase("inp_writeback");
       }},
      {"buffers_kib.uop", [](json& j) { j["buffers_kib"]["uop"] = 16; }},
      {"buffers_kib.input", [](json& j) { j["buffers_kib"]["input"] = 16; }},
      {"buffers_kib.weight", [](json& j) { j["buffers_kib"]["weight"] = 64; }},
      {"buffers_kib.accumulator+output",
       [](json& j) {
         j["buffers_kib"]["accumulator"] = 64;
         j["buffers_kib"]["output"] = 16;
       }},
      {"axi.data_bits", [](json& j) { j["axi"]["data_bits"] = 128; }},
      {"queues.command_depth", [](json& j) { j["queues"]["command_depth"] = 64; }},
      {"queues.token_depth", [](json& j) { j["queues"]["token_depth"] = 16; }},
      {"isa.dram_addr_bits", [](json& j) { j["isa"]["dram_addr_bits"] = 30; }},
      {"isa.xfer_size_bits", [](json& j) { j["isa"]["xfer_size_bits"] = 15; }},
      {"isa.pad_bits", [](json& j) { j["isa"]["pad_bits"] = 3; }},
      {"isa.loop_iter_bits", [](json& j) { j["isa"]["loop_iter_bits"] = 13; }},
      {"isa.alu_imm_bits",
       [](json& j) {
         j["isa"]["alu_imm_bits"] = 12;
         j.erase("extensions");  // REQ needs 16 bits of immediate
       }},
      // (without gemm_requant, which runs REQ)
      {"extensions.fused_requant",
       [](json& j) {
         j["extensions"]["fused_requant"] = false;
         j["extensions"].erase("gemm_requant");
       }},
      {"extensions.gemm_requant", [](json& j) { j["extensions"].erase("gemm_requant"); }},
      {"extensions.float_requant", [](json& j) { j["extensions"]["float_requant"] = true; }},
      {"extensions.depthwise_taps", [](json& j) { j["extensions"]["depthwise_taps"] = 2; }},
      {"extensions.depthwise_taps off", [](json& j) { j["extensions"]["depthwise_taps"] = 0; }},
      {"extensions.acc_dual_read", [](json& j) { j["extensions"]["acc_dual_read"] = false; }},
      {"extensions.inp_writeback", [](json& j) { j["extensions"].erase("inp_writeback"); }},
      {"ultraram", [](json& j) { j["ultraram"] = {"accumulator"}; }},
      {"ultraram two",
       [](json& j) {
         j["ultraram"] = {"input", "accumulator"};
       }},
  };
  const uint64_t base = loadConfig("pynq").hash;
  std::set<uint64_t> seen = {base};
  for (const Change& ch : changes) {
    SCOPED_TRACE(ch.what);
    json j = pynqJson();
    ch.apply(j);
    HwConfig c;
    ASSERT_NO_THROW(c = parseConfig(j.dump(), ch.what));
    EXPECT_NE(c.hash, base);
    EXPECT_TRUE(seen.insert(c.hash).second) << "hash collides with another change";
  }
}

// ---- invalid configs ----

struct BadConfig {
  const char* what;
  std::function<std::string()> text;  // the config text
  std::vector<std::string> expected;  // substrings of the message
};

std::function<std::string()> pynqWith(std::function<void(json&)> edit) {
  return [edit] {
    json j = pynqJson();
    edit(j);
    return j.dump(2);
  };
}

TEST(ConfigErrorTest, InvalidConfigsNameTheFieldAndTheReason) {
  const std::vector<BadConfig> cases = {
      {"invalid JSON", [] { return std::string("{\"name\": \"x\", "); }, {"invalid JSON"}},
      {"not an object", [] { return std::string("[1, 2]"); }, {"(top level)", "must be a JSON object"}},
      {"missing gemm.block_in",
       pynqWith([](json& j) { j["gemm"].erase("block_in"); }),
       {"'gemm.block_in'", "is missing"}},
      {"missing section", pynqWith([](json& j) { j.erase("queues"); }), {"'queues'", "is missing"}},
      {"missing isa field", pynqWith([](json& j) { j["isa"].erase("pad_bits"); }), {"'isa.pad_bits'", "is missing"}},
      {"missing name", pynqWith([](json& j) { j.erase("name"); }), {"'name'", "is missing"}},
      {"extension switch not a bool",
       pynqWith([](json& j) { j["extensions"]["fused_requant"] = 1; }),
       {"'extensions.fused_requant'", "must be true or false"}},
      {"ultraram not a list",
       pynqWith([](json& j) { j["ultraram"] = "accumulator"; }),
       {"'ultraram'", "must be a list of buffer names"}},
      {"ultraram unknown buffer",
       pynqWith([](json& j) {
         j["ultraram"] = {"input", "acc"};
       }),
       {"'ultraram[1]'", "must be one of {uop, input, weight, accumulator, output}", "\"acc\""}},
      {"ultraram buffer twice",
       pynqWith([](json& j) {
         j["ultraram"] = {"output", "output"};
       }),
       {"'ultraram[1]'", "names 'output' twice"}},
      {"unknown extension",
       pynqWith([](json& j) { j["extensions"]["depthwise_engine"] = true; }),
       {"'extensions.depthwise_engine'", "is not a known field"}},
      {"FREQ without REQ",
       pynqWith([](json& j) {
         j["extensions"] = {{"fused_requant", false}, {"float_requant", true}};
       }),
       {"'extensions.float_requant'", "needs extensions.fused_requant"}},
      {"REQ without room for its bounds",
       pynqWith([](json& j) { j["isa"]["alu_imm_bits"] = 12; }),
       {"'extensions.fused_requant'", "alu_imm_bits >= 16", "got 12"}},
      {"empty name", pynqWith([](json& j) { j["name"] = ""; }), {"'name'", "must not be empty"}},
      {"integer as string",
       pynqWith([](json& j) { j["gemm"]["batch"] = "1"; }),
       {"'gemm.batch'", "non-negative integer", "\"1\""}},
      {"float for integer",
       pynqWith([](json& j) { j["queues"]["token_depth"] = 32.5; }),
       {"'queues.token_depth'", "non-negative integer"}},
      {"bool for integer",
       pynqWith([](json& j) { j["isa"]["pad_bits"] = true; }),
       {"'isa.pad_bits'", "non-negative integer"}},
      {"number as string",
       pynqWith([](json& j) { j["target"]["clock_mhz"] = "fast"; }),
       {"'target.clock_mhz'", "must be a number"}},
      {"string as number", pynqWith([](json& j) { j["target"]["board"] = 7; }), {"'target.board'", "must be a string"}},
      {"description not a string",
       pynqWith([](json& j) { j["description"] = 1; }),
       {"'description'", "must be a string"}},
      {"section not an object", pynqWith([](json& j) { j["gemm"] = 16; }), {"'gemm'", "must be a JSON object"}},
      {"negative",
       pynqWith([](json& j) { j["queues"]["token_depth"] = -1; }),
       {"'queues.token_depth'", "non-negative integer", "-1"}},
      {"out of range high",
       pynqWith([](json& j) { j["gemm"]["batch"] = 32; }),
       {"'gemm.batch'", "must be in [1, 16]", "got 32"}},
      {"out of range low",
       pynqWith([](json& j) { j["isa"]["dram_addr_bits"] = 8; }),
       {"'isa.dram_addr_bits'", "must be in [16, 32]", "got 8"}},
      {"DRAM address wider than the RTL's AXI address",
       pynqWith([](json& j) { j["isa"]["dram_addr_bits"] = 40; }),
       {"'isa.dram_addr_bits'", "must be in [16, 32]", "got 40", "32-bit byte addresses"}},
      {"token queue deeper than the RTL's 8-bit count",
       pynqWith([](json& j) { j["queues"]["token_depth"] = 256; }),
       {"'queues.token_depth'", "must be in [1, 255]", "got 256", "8 bits"}},
      {"out of range zero",
       pynqWith([](json& j) { j["queues"]["command_depth"] = 0; }),
       {"'queues.command_depth'", "must be in [1, 4096]", "got 0"}},
      {"clock zero", pynqWith([](json& j) { j["target"]["clock_mhz"] = 0; }), {"'target.clock_mhz'", "must be in"}},
      {"clock too high",
       pynqWith([](json& j) { j["target"]["clock_mhz"] = 1000.5; }),
       {"'target.clock_mhz'", "must be in"}},
      {"non-power-of-two block",
       pynqWith([](json& j) { j["gemm"]["block_in"] = 12; }),
       {"'gemm.block_in'", "power of two", "12"}},
      {"non-power-of-two buffer",
       pynqWith([](json& j) { j["buffers_kib"]["weight"] = 200; }),
       {"'buffers_kib.weight'", "power of two", "200"}},
      {"unsupported data width",
       pynqWith([](json& j) { j["data_bits"]["input"] = 16; }),
       {"'data_bits.input'", "must be one of {8}", "16"}},
      {"unsupported axi width",
       pynqWith([](json& j) { j["axi"]["data_bits"] = 48; }),
       {"'axi.data_bits'", "must be one of {32, 64, 128, 256, 512}", "48"}},
      {"AXI beat wider than the RTL's instruction fetch",
       pynqWith([](json& j) { j["axi"]["data_bits"] = 256; }),
       {"'axi.data_bits'", "must be at most 128", "got 256", "instruction fetch"}},
      {"AXI beat of several instructions",
       pynqWith([](json& j) { j["axi"]["data_bits"] = 512; }),
       {"'axi.data_bits'", "must be at most 128", "got 512"}},
      {"AXI beat wider than an OUT entry",
       pynqWith([](json& j) {
         j["gemm"]["block_out"] = 8;
         j["gemm"]["block_in"] = 8;
         j["axi"]["data_bits"] = 128;
       }),
       {"'axi.data_bits'", "at most the OUT entry's 64 bits", "got 128", "store"}},
      {"depthwise taps past the multiplier pairs",
       pynqWith([](json& j) { j["extensions"]["depthwise_taps"] = 9; }),
       {"'extensions.depthwise_taps'", "at most 8", "got 9"}},
      {"STORE INP with INP and OUT entries of different widths",
       pynqWith([](json& j) {
         j["gemm"]["block_in"] = 32;
         j["extensions"].erase("depthwise_taps");
       }),
       {"'extensions.inp_writeback'", "one width", "256 and 128"}},
      {"depthwise taps with block_in below block_out",
       pynqWith([](json& j) { j["gemm"]["block_out"] = 32; }),
       {"'extensions.depthwise_taps'", "block_in >= gemm.block_out", "16 and 32"}},
      {"unknown field (typo)",
       pynqWith([](json& j) { j["gemm"]["blok_in"] = 16; }),
       {"'gemm.blok_in'", "is not a known field"}},
      {"unknown top-level field",
       pynqWith([](json& j) { j["descripton"] = "typo"; }),
       {"'descripton'", "is not a known field"}},
      {"unknown isa field",
       pynqWith([](json& j) { j["isa"]["imm_bits"] = 16; }),
       {"'isa.imm_bits'", "is not a known field"}},
      {"output depth != accumulator depth",
       pynqWith([](json& j) { j["buffers_kib"]["output"] = 64; }),
       {"'buffers_kib.output'", "as many entries as the accumulator", "2048", "4096"}},
      {"buffer smaller than one entry",
       pynqWith([](json& j) {
         j["gemm"]["block_in"] = 128;
         j["gemm"]["block_out"] = 128;
         j["buffers_kib"]["weight"] = 8;
       }),
       {"'buffers_kib.weight'", "holds no complete entry", "16384"}},
      {"huge buffers: instruction too wide",
       pynqWith([](json& j) {
         for (const char* k : {"uop", "input", "weight", "accumulator"}) j["buffers_kib"][k] = 65536;
         j["buffers_kib"]["output"] = 16384;  // as many entries as the accumulator
       }),
       {"buffers_kib/isa", "LOAD needs 130 bits", "128 bits"}},
      {"ISA widths: ALU too wide",
       pynqWith([](json& j) { j["isa"]["alu_imm_bits"] = 32; }),
       {"buffers_kib/isa", "ALU needs 144 bits"}},
      {"deep buffers: micro-op too wide",
       pynqWith([](json& j) {
         j["buffers_kib"]["accumulator"] = 4096;  // 65536 entries: 16 bits
         j["buffers_kib"]["output"] = 1024;
         j["buffers_kib"]["input"] = 1024;  // 65536 entries: 16 bits
         j["isa"]["loop_iter_bits"] = 4;    // keep the instructions within 128 bits
       }),
       {"buffers_kib/isa", "micro-op needs 41 bits", "32 bits"}},
  };
  for (const BadConfig& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string msg = errorOf([&] { parseConfig(c.text(), "bad.json"); });
    EXPECT_EQ(msg.rfind("bad.json: ", 0), 0u) << msg;  // starts with the origin
    for (const std::string& e : c.expected)
      EXPECT_NE(msg.find(e), std::string::npos) << "'" << e << "' not in: " << msg;
  }
}

TEST(ConfigErrorTest, InstructionWidthLimitIsExactly128Bits) {
  // pynq's ALU uses 111 bits before its 16-bit immediate and one after it
  // (bias_clear): without that flag a 17-bit immediate fills the 128 bits
  // exactly and must be accepted, an 18-bit one not.
  // (gemm_requant needs bias_clear, so it goes too.)
  json j = pynqJson();
  j["extensions"].erase("alu_bias_clear");
  j["extensions"].erase("gemm_requant");
  j["isa"]["alu_imm_bits"] = 17;
  EXPECT_NO_THROW(parseConfig(j.dump(), "imm17"));
  j["isa"]["alu_imm_bits"] = 18;
  const std::string msg = errorOf([&] { parseConfig(j.dump(), "imm18"); });
  EXPECT_NE(msg.find("ALU needs 129 bits"), std::string::npos) << msg;

  // pynq's GEMM fills the 128 bits with its requant flag (extension
  // gemm_requant); one more bit of a loop field does not fit.
  json g = pynqJson();
  EXPECT_NO_THROW(parseConfig(g.dump(), "pynq"));
  g["isa"]["loop_iter_bits"] = 15;
  const std::string gemm_msg = errorOf([&] { parseConfig(g.dump(), "iter15"); });
  EXPECT_NE(gemm_msg.find("GEMM needs 130 bits"), std::string::npos) << gemm_msg;
}

TEST(ConfigErrorTest, LoadConfigOfMissingFileNamesThePath) {
  const std::string path = "/nonexistent/dir/my_config.json";
  const std::string msg = errorOf([&] { loadConfig(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
}

TEST(ConfigErrorTest, LoadConfigFromFileUsesThePathAsOrigin) {
  const std::string path = ::testing::TempDir() + "vdla_hw_config_test_bad.json";
  {
    json j = pynqJson();
    j["gemm"]["batch"] = 3;
    std::ofstream(path) << j.dump();
  }
  const std::string msg = errorOf([&] { loadConfig(path); });
  EXPECT_EQ(msg.rfind(path + ": field 'gemm.batch'", 0), 0u) << msg;
  std::remove(path.c_str());
}

TEST(ConfigTest, LoadConfigFromFile) {
  const std::string path = ::testing::TempDir() + "vdla_hw_config_test_good.json";
  json j = pynqJson();
  j["name"] = "custom";
  j["gemm"]["batch"] = 4;
  std::ofstream(path) << j.dump();
  HwConfig c = loadConfig(path);
  EXPECT_EQ(c.name, "custom");
  EXPECT_EQ(c.batch, 4u);
  EXPECT_EQ(c.depth(Memory::Acc), 512u);
  std::remove(path.c_str());
}

// ---- canonical JSON ----

TEST(ConfigJsonTest, ContainsDerivedQuantities) {
  HwConfig c = loadConfig("pynq");
  json j = json::parse(configToJson(c));
  EXPECT_EQ(j["name"], "pynq");
  EXPECT_EQ(j["gemm"]["block_in"], 16);
  EXPECT_EQ(j["buffers_kib"]["weight"], 128);
  const json& mem = j["derived"]["memories"];
  EXPECT_EQ(mem["UOP"]["depth"], 8192);
  EXPECT_EQ(mem["INP"]["depth"], 4096);
  EXPECT_EQ(mem["WGT"]["depth"], 512);
  EXPECT_EQ(mem["ACC"]["depth"], 2048);
  EXPECT_EQ(mem["OUT"]["depth"], 2048);
  EXPECT_EQ(mem["UOP"]["entry_bytes"], 4);
  EXPECT_EQ(mem["INP"]["entry_bytes"], 16);
  EXPECT_EQ(mem["WGT"]["entry_bytes"], 256);
  EXPECT_EQ(mem["ACC"]["entry_bytes"], 64);
  EXPECT_EQ(mem["OUT"]["entry_bytes"], 16);
  EXPECT_EQ(mem["UOP"]["index_bits"], 13);
  EXPECT_EQ(mem["WGT"]["index_bits"], 9);
  EXPECT_EQ(j["derived"]["macs_per_cycle"], 256);
  EXPECT_DOUBLE_EQ(j["derived"]["peak_gops"].get<double>(), 76.8);  // 2 * 256 * 150 MHz
  EXPECT_EQ(j["derived"]["hash"], c.hashHex());
}

TEST(ConfigJsonTest, IndentControlsFormatting) {
  HwConfig c = loadConfig("tiny");
  const std::string compact = configToJson(c, -1);
  EXPECT_EQ(compact.find('\n'), std::string::npos);
  EXPECT_NE(configToJson(c, 2).find('\n'), std::string::npos);
  EXPECT_EQ(json::parse(compact), json::parse(configToJson(c, 4)));
}

// The UltraRAM placement: a bit per buffer, in the canonical form (in
// buffers_kib's order, whatever the file's) and so in the hash; a config
// without it keeps its hash.
TEST(ConfigTest, UltraRamPlacement) {
  json j = pynqJson();
  j["ultraram"] = {"output", "uop", "accumulator"};
  const HwConfig c = parseConfig(j.dump(), "test");
  EXPECT_TRUE(c.inUltraRam(Memory::Uop));
  EXPECT_TRUE(c.inUltraRam(Memory::Acc));
  EXPECT_TRUE(c.inUltraRam(Memory::Acc8));  // ACC8 is ACC
  EXPECT_TRUE(c.inUltraRam(Memory::Output));
  EXPECT_FALSE(c.inUltraRam(Memory::Input));
  EXPECT_FALSE(c.inUltraRam(Memory::Weight));
  const json canonical = json::parse(configToJson(c));
  EXPECT_EQ(canonical["ultraram"], json({"uop", "accumulator", "output"}));
  j["ultraram"] = {"accumulator", "output", "uop"};
  EXPECT_EQ(parseConfig(j.dump(), "test").hash, c.hash);
  j["ultraram"] = json::array();
  EXPECT_EQ(parseConfig(j.dump(), "test").hash, loadConfig("pynq").hash);
  EXPECT_FALSE(json::parse(configToJson(loadConfig("pynq"))).contains("ultraram"));
}

TEST(ConfigJsonTest, CanonicalFormReparsesToTheSameConfig) {
  for (const HwConfig& c : testing::shippedConfigs()) {
    SCOPED_TRACE(c.name);
    json j = json::parse(configToJson(c));
    j.erase("derived");
    HwConfig back = parseConfig(j.dump(), "canonical");
    EXPECT_EQ(back.hash, c.hash);
    EXPECT_EQ(back.name, c.name);
    EXPECT_EQ(back.description, c.description);
    EXPECT_EQ(configToJson(back), configToJson(c));
  }
}

}  // namespace
}  // namespace vdla::hw
