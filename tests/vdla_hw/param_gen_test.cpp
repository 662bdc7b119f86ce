// Tests of vdla_hw/param_gen: the HLS header and the SystemVerilog package.
#include "vdla/hw/param_gen.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <regex>
#include <sstream>

#include <fstream>

#include "hw_test_util.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/registers.h"

namespace vdla::hw {
namespace {

using Params = std::map<std::string, uint64_t>;

std::string upper(std::string s) {
  for (char& ch : s) ch = char(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// Parses "<decl> NAME = VALUE;" lines; fails on a name defined twice.
Params parseParams(const std::string& text, const std::string& decl) {
  Params out;
  const std::regex re("^\\s*" + decl + "\\s+([A-Z0-9_]+)\\s*=\\s*([0-9]+)\\s*;.*$");
  std::istringstream in(text);
  std::string line;
  for (std::smatch m; std::getline(in, line);) {
    if (!std::regex_match(line, m, re)) continue;
    EXPECT_TRUE(out.emplace(m[1].str(), std::stoull(m[2].str())).second) << "defined twice: " << m[1];
  }
  return out;
}

Params hlsParams(const HwConfig& c) { return parseParams(generateHlsHeader(c, "src.json"), "constexpr int"); }
// The config's parameters: the package up to its host-interface section,
// which has no counterpart in the HLS header (the HLS C++ reads
// vdla/hw/registers.h).
Params svParams(const HwConfig& c) {
  const std::string sv = generateSvPackage(c, "src.json");
  const size_t iface = sv.find("  // Host interface");
  EXPECT_NE(iface, std::string::npos);
  return parseParams(sv.substr(0, iface), "localparam int");
}

std::vector<std::string> nonBlankLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(l);
  return lines;
}

TEST(ParamGenTest, PynqHeaderValues) {
  HwConfig c = loadConfig("pynq");
  const std::string h = generateHlsHeader(c, "vdla_hw/config/pynq.json");
  EXPECT_NE(h.find("#pragma once"), std::string::npos);
  EXPECT_NE(h.find("vdla_hw/config/pynq.json"), std::string::npos);
  EXPECT_NE(h.find("#define VDLA_CONFIG_NAME \"pynq\""), std::string::npos);
  EXPECT_NE(h.find("constexpr uint64_t CONFIG_HASH = 0x" + c.hashHex() + "ull;"), std::string::npos);
  EXPECT_NE(h.find("namespace vdla_params {"), std::string::npos);
  EXPECT_NE(h.find("}  // namespace vdla_params"), std::string::npos);
  Params p = hlsParams(c);
  EXPECT_EQ(p.at("BATCH"), 1u);
  EXPECT_EQ(p.at("BLOCK_IN"), 16u);
  EXPECT_EQ(p.at("BLOCK_OUT"), 16u);
  EXPECT_EQ(p.at("LOG_BLOCK_IN"), 4u);
  EXPECT_EQ(p.at("LOG_BATCH"), 0u);
  EXPECT_EQ(p.at("ACC_DEPTH"), 2048u);
  EXPECT_EQ(p.at("UOP_DEPTH"), 8192u);
  EXPECT_EQ(p.at("INP_DEPTH"), 4096u);
  EXPECT_EQ(p.at("WGT_DEPTH"), 512u);
  EXPECT_EQ(p.at("OUT_DEPTH"), 2048u);
  EXPECT_EQ(p.at("UOP_IDX_BITS"), 13u);
  EXPECT_EQ(p.at("WGT_IDX_BITS"), 9u);
  EXPECT_EQ(p.at("WGT_ENTRY_BITS"), 256u * 8);
  EXPECT_EQ(p.at("ACC_ENTRY_BITS"), 64u * 8);
  EXPECT_EQ(p.at("INP_ENTRY_BITS"), 16u * 8);
  EXPECT_EQ(p.at("ACC8_ENTRY_BITS"), 16u * 8);
  EXPECT_EQ(p.at("AXI_DATA_BITS"), 64u);
  EXPECT_EQ(p.at("CMD_QUEUE_DEPTH"), 128u);
  EXPECT_EQ(p.at("TOKEN_QUEUE_DEPTH"), 32u);
  EXPECT_EQ(p.at("CLOCK_KHZ"), 150000u);
  EXPECT_EQ(p.at("INSN_BITS"), 128u);
  EXPECT_EQ(p.at("UOP_BITS"), 32u);
  EXPECT_EQ(p.at("UOP_DST_BITS"), 11u);
  EXPECT_EQ(p.at("UOP_SRC_BITS"), 12u);
  EXPECT_EQ(p.at("UOP_WGT_BITS"), 9u);
  EXPECT_EQ(p.at("OPCODE_LOAD"), 0u);
  EXPECT_EQ(p.at("OPCODE_FINISH"), 4u);
  EXPECT_EQ(p.at("MEM_OUT"), 4u);
  EXPECT_EQ(p.at("MEM_ACC8"), 5u);
  EXPECT_EQ(p.at("ALU_MOV"), 6u);
  EXPECT_EQ(p.at("ALU_CLIP"), 7u);
  EXPECT_EQ(p.at("ALU_MULSHR"), 8u);
  EXPECT_EQ(p.at("ALU_MIN"), 0u);
  // Hand-computed positions (see IsaLayoutTest.PynqWidthsByHand).
  EXPECT_EQ(p.at("LOAD_OPCODE_LSB"), 0u);
  EXPECT_EQ(p.at("LOAD_OPCODE_W"), 3u);
  EXPECT_EQ(p.at("LOAD_SRAM_BASE_W"), 13u);
  EXPECT_EQ(p.at("ALU_IMM_W"), 16u);
}

TEST(ParamGenTest, PynqSvPackage) {
  HwConfig c = loadConfig("pynq");
  const std::string sv = generateSvPackage(c, "vdla_hw/config/pynq.json");
  std::vector<std::string> lines = nonBlankLines(sv);
  ASSERT_GE(lines.size(), 3u);
  // Comments may precede the package; the first code line opens it and the last closes it.
  size_t first = 0;
  while (first < lines.size() && lines[first].rfind("//", 0) == 0) ++first;
  ASSERT_LT(first, lines.size());
  EXPECT_EQ(lines[first], "package vdla_pkg;");
  EXPECT_EQ(lines.back(), "endpackage");
  EXPECT_EQ(sv.back(), '\n');
  for (size_t i = first + 1; i + 1 < lines.size(); ++i) {
    EXPECT_TRUE(lines[i].rfind("  localparam ", 0) == 0 || lines[i].rfind("  // ", 0) == 0) << lines[i];
  }
  EXPECT_NE(sv.find("localparam logic [63:0] CONFIG_HASH = 64'h" + c.hashHex() + ";"), std::string::npos);
  Params p = svParams(c);
  EXPECT_EQ(p.at("BLOCK_IN"), 16u);
  EXPECT_EQ(p.at("ACC_DEPTH"), 2048u);
}

TEST(ParamGenTest, HlsAndSvCarryTheSameParameters) {
  for (const HwConfig& c : testing::allTestConfigs()) {
    SCOPED_TRACE(c.name);
    Params h = hlsParams(c), s = svParams(c);
    EXPECT_GT(h.size(), 50u);
    EXPECT_EQ(h, s);
  }
}

TEST(ParamGenTest, FieldPositionsMatchIsaLayout) {
  for (const HwConfig& c : testing::allTestConfigs()) {
    IsaLayout layout(c);
    for (const auto& [kind, params] : {std::make_pair("hls", hlsParams(c)), std::make_pair("sv", svParams(c))}) {
      SCOPED_TRACE(c.name + " " + kind);
      size_t field_count = 0;
      for (int op = 0; op < kNumOpcodes; ++op) {
        for (const BitField& f : layout.fields(Opcode(op))) {
          ++field_count;
          const std::string name = std::string(opcodeName(Opcode(op))) + "_" + upper(fieldName(f.field));
          auto lsb = params.find(name + "_LSB");
          auto w = params.find(name + "_W");
          ASSERT_NE(lsb, params.end()) << name << "_LSB missing";
          ASSERT_NE(w, params.end()) << name << "_W missing";
          EXPECT_EQ(lsb->second, f.offset) << name;
          EXPECT_EQ(w->second, f.width) << name;
        }
      }
      // No position parameter for a field that the layout does not have.
      size_t lsb_count = 0, w_count = 0;
      const std::regex field_param("^(LOAD|STORE|GEMM|ALU|FINISH|DWGEMM|SETREQ)_[A-Z_]+_(LSB|W)$");
      for (const auto& [name, value] : params) {
        std::smatch m;
        if (!std::regex_match(name, m, field_param)) continue;
        (m[2] == "LSB" ? lsb_count : w_count)++;
      }
      EXPECT_EQ(lsb_count, field_count);
      EXPECT_EQ(w_count, field_count);
      EXPECT_EQ(params.at("UOP_DST_BITS"), layout.uopDstBits());
      EXPECT_EQ(params.at("UOP_SRC_BITS"), layout.uopSrcBits());
      EXPECT_EQ(params.at("UOP_WGT_BITS"), layout.uopWgtBits());
      for (Memory m : {Memory::Uop, Memory::Weight, Memory::Input, Memory::Acc, Memory::Output}) {
        const std::string n = memoryName(m);
        EXPECT_EQ(params.at(n + "_DEPTH"), c.depth(m)) << n;
        EXPECT_EQ(params.at(n + "_IDX_BITS"), c.indexBits(m)) << n;
        EXPECT_EQ(params.at(n + "_ENTRY_BITS"), uint64_t(c.entryBytes(m)) * 8) << n;
      }
    }
  }
}

TEST(ParamGenTest, HashDiffersPerConfig) {
  HwConfig pynq = loadConfig("pynq"), tiny = loadConfig("tiny");
  const std::string h = generateHlsHeader(tiny, "t");
  EXPECT_NE(h.find(tiny.hashHex()), std::string::npos);
  EXPECT_EQ(h.find(pynq.hashHex()), std::string::npos);
  EXPECT_EQ(hlsParams(tiny).at("BATCH"), 2u);
  EXPECT_EQ(hlsParams(tiny).at("BLOCK_IN"), 4u);
  EXPECT_EQ(hlsParams(tiny).at("BLOCK_OUT"), 8u);
  EXPECT_EQ(hlsParams(tiny).at("ACC_DEPTH"), 64u);
}

// The host interface's localparams: "localparam logic [W:0] NAME = W'hX;" or
// "'dX", and "localparam int NAME = N;".
Params interfaceParams(const std::string& sv) {
  Params out;
  const std::regex re(R"(^\s*localparam (?:logic \[\d+:0\]|int) ([A-Z0-9_]+)\s*=\s*(?:\d+'([hd]))?([0-9a-f]+)\s*;.*$)");
  std::istringstream in(sv);
  std::string line;
  for (std::smatch m; std::getline(in, line);)
    if (std::regex_match(line, m, re)) out[m[1]] = std::stoull(m[3], nullptr, m[2] == "h" ? 16 : 10);
  return out;
}

TEST(ParamGenTest, RtlPackageCarriesTheHostInterfaceTable) {
  const Params p = interfaceParams(generateSvPackage(loadConfig("tiny"), "t"));
  size_t checked = 0;
  auto expect = [&](const std::string& name, uint64_t value) {
    ASSERT_TRUE(p.count(name)) << name << " is missing from the package";
    EXPECT_EQ(p.at(name), value) << name;
    ++checked;
  };
#define VDLA_HW_X(name, sv, offset, access, meaning) expect("REG_" #sv, regs::k##name);
  VDLA_HW_REGISTERS(VDLA_HW_X)
#undef VDLA_HW_X
#define VDLA_HW_X(name, sv, bit, meaning) expect("CTRL_" #sv, bit);
  VDLA_HW_CTRL_BITS(VDLA_HW_X)
#undef VDLA_HW_X
#define VDLA_HW_X(name, sv, code, meaning) expect("E_" #sv, regs::kErr##name);
  VDLA_HW_ERRORS(VDLA_HW_X)
#undef VDLA_HW_X
#define VDLA_HW_X(name, sv, value, label, meaning) expect("S_" #sv, regs::kSt##name);
  VDLA_HW_STATES(VDLA_HW_X)
#undef VDLA_HW_X
#define VDLA_HW_X(name, sv, meaning) expect("CNT_" #sv, regs::kCnt##name);
  VDLA_HW_COUNTERS(VDLA_HW_X)
#undef VDLA_HW_X
  expect("NUM_COUNTERS", regs::kNumCounters);
  expect("UNMAPPED_READ", regs::kUnmappedRead);
  EXPECT_EQ(checked, 18u + 4 + 20 + 8 + 18 + 2);
  EXPECT_EQ(regs::kCntAluVectors + 1, regs::kNumCounters);
  EXPECT_STREQ(regs::errorName(regs::kErrTokensLeft), "TOKENS_LEFT");
  EXPECT_EQ(regs::errorName(200), nullptr);
}

TEST(ParamGenTest, HardwareDocShowsTheHostInterfaceTable) {
  std::ifstream in(VDLA_HARDWARE_DOC);
  ASSERT_TRUE(in) << VDLA_HARDWARE_DOC;
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_NE(doc.str().find(generateInterfaceDoc()), std::string::npos)
      << "docs/hardware.md does not hold the tables of vdla/hw/interface_table.h; paste the output of "
         "`vdla_hwgen --interface-doc` between its markers";
}

}  // namespace
}  // namespace vdla::hw
