#include "vdla/hw/param_gen.h"

#include <cctype>
#include <cstdio>
#include <sstream>
#include <vector>

#include "vdla/hw/dram_timing.h"
#include "vdla/hw/interface_table.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/registers.h"

namespace vdla::hw {
namespace {

struct Param {
  std::string name;  // UPPER_SNAKE
  uint64_t value;
  std::string comment;
};

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

uint32_t log2Exact(uint64_t v) {
  uint32_t b = 0;
  while ((uint64_t(1) << b) < v) ++b;
  return b;
}

// The one list of parameters both generators print.
std::vector<Param> collectParams(const HwConfig& c) {
  std::vector<Param> p = {
      {"BATCH", c.batch, "GEMM rows per cycle"},
      {"BLOCK_IN", c.block_in, "GEMM reduction width"},
      {"BLOCK_OUT", c.block_out, "GEMM columns per cycle"},
      {"LOG_BATCH", log2Exact(c.batch), ""},
      {"LOG_BLOCK_IN", log2Exact(c.block_in), ""},
      {"LOG_BLOCK_OUT", log2Exact(c.block_out), ""},
      {"INP_BITS", c.input_bits, "input element width"},
      {"WGT_BITS", c.weight_bits, "weight element width"},
      {"ACC_BITS", c.acc_bits, "accumulator element width"},
      {"OUT_BITS", c.output_bits, "output element width"},
      {"AXI_DATA_BITS", c.axi_data_bits, "AXI master data width"},
      {"CMD_QUEUE_DEPTH", c.command_queue_depth, "per-module instruction queue"},
      {"TOKEN_QUEUE_DEPTH", c.token_queue_depth, "each dependency-token queue"},
      {"CLOCK_KHZ", uint64_t(c.clock_mhz * 1000 + 0.5), "target clock"},
      {"INSN_BITS", kInstructionBytes * 8, "instruction width"},
      {"UOP_BITS", kUopBytes * 8, "micro-op width"},
      {"FUSED_REQUANT", c.fused_requant ? 1u : 0u, "extension: ALU op REQ"},
      {"FLOAT_REQUANT", c.float_requant ? 1u : 0u, "extension: ALU op FREQ"},
      {"DEPTHWISE_TAPS", c.depthwise_taps, "extension: DWGEMM window taps (0: no DWGEMM)"},
      {"ALU_BIAS_CLEAR", c.alu_bias_clear ? 1u : 0u, "extension: the ALU flag bias_clear"},
      {"GEMM_REQUANT", c.gemm_requant ? 1u : 0u, "extension: SETREQ and the GEMM flag requant"},
      {"ACC_DUAL_READ", c.acc_dual_read ? 1u : 0u,
       "extension: a second ACC read port (tensor ALU ops at one vector a cycle)"},
      {"INP_WRITEBACK", c.inp_writeback ? 1u : 0u, "extension: STORE INP (the store module copies OUT into INP)"},
      {"ALU_OP_LAST", uint64_t(numAluOps(c) - 1), "highest ALU op the config has"},
      {"AXI_MAX_BURST", kMaxBurstBeats, "DMA: beats per INCR burst at most"},
      {"AXI_MAX_OUTSTANDING", kMaxOutstandingBursts, "DMA: bursts in flight per engine at most"},
  };
  const Memory mems[] = {Memory::Uop, Memory::Weight, Memory::Input, Memory::Acc, Memory::Output};
  for (Memory m : mems) {
    std::string n = memoryName(m);
    p.push_back({n + "_ENTRY_BITS", uint64_t(c.entryBytes(m)) * 8, std::string("bits per ") + n + " entry"});
    p.push_back({n + "_DEPTH", c.depth(m), std::string(n) + " entries"});
    p.push_back({n + "_IDX_BITS", c.indexBits(m), std::string("bits of an ") + n + " index"});
    p.push_back({n + "_ULTRARAM", c.inUltraRam(m) ? 1u : 0u, std::string("synthesis: ") + n + " in UltraRAM"});
  }
  p.push_back({"ACC8_ENTRY_BITS", uint64_t(c.entryBytes(Memory::Acc8)) * 8, "bits per int8 DRAM element of LOAD ACC8"});
  IsaLayout layout(c);
  p.push_back({"UOP_DST_BITS", layout.uopDstBits(), "micro-op: dst field at bit 0"});
  p.push_back({"UOP_SRC_BITS", layout.uopSrcBits(), "micro-op: src field after dst"});
  p.push_back({"UOP_WGT_BITS", layout.uopWgtBits(), "micro-op: wgt field after src"});
  for (int op = 0; op < kNumOpcodes; ++op) {
    p.push_back({std::string("OPCODE_") + opcodeName(Opcode(op)), uint64_t(op), ""});
    for (const BitField& f : layout.fields(Opcode(op))) {
      std::string n = std::string(opcodeName(Opcode(op))) + "_" + upper(fieldName(f.field));
      p.push_back({n + "_LSB", f.offset, ""});
      p.push_back({n + "_W", f.width, f.is_signed ? "signed" : ""});
    }
  }
  // The bias_clear flag's bit, 0 without the extension (the flag is then not
  // encoded and ALU_BIAS_CLEAR gates every use), so that the RTL and HLS name
  // it on every config.
  uint64_t bias_clear_bit = 0;
  for (const BitField& f : layout.fields(Opcode::Alu))
    if (f.field == Field::BiasClear) bias_clear_bit = f.offset;
  p.push_back({"ALU_BIAS_CLEAR_BIT", bias_clear_bit, "ALU: the bias_clear flag (with ALU_BIAS_CLEAR)"});
  // Likewise the GEMM's requant flag (extension gemm_requant).
  uint64_t requant_bit = 0;
  for (const BitField& f : layout.fields(Opcode::Gemm))
    if (f.field == Field::Requant) requant_bit = f.offset;
  p.push_back({"GEMM_REQUANT_BIT", requant_bit, "GEMM: the requant flag (with GEMM_REQUANT)"});
  uint64_t dw_requant_bit = 0;
  for (const BitField& f : layout.fields(Opcode::DwGemm))
    if (f.field == Field::Requant) dw_requant_bit = f.offset;
  p.push_back({"DWGEMM_REQUANT_BIT", dw_requant_bit, "DWGEMM: the requant flag (with GEMM_REQUANT)"});
  // DWGEMM's lane_block field, encoded only where block_in exceeds
  // block_out: its position and width (0: not encoded, always lane block 0).
  uint64_t lane_block_bit = 0, lane_block_bits = 0;
  for (const BitField& f : layout.fields(Opcode::DwGemm))
    if (f.field == Field::LaneBlock) lane_block_bit = f.offset, lane_block_bits = f.width;
  p.push_back({"DWGEMM_LANE_BLOCK_BIT", lane_block_bit, "DWGEMM: lane_block's first bit"});
  p.push_back({"DWGEMM_LANE_BLOCK_BITS", lane_block_bits, "DWGEMM: lane_block's width (0: not encoded)"});
  for (int m = 0; m < kNumMemoryIds; ++m) p.push_back({std::string("MEM_") + memoryName(Memory(m)), uint64_t(m), ""});
  for (int op = 0; op < kNumAluOps; ++op) p.push_back({std::string("ALU_") + aluOpName(AluOp(op)), uint64_t(op), ""});
  return p;
}

std::string hexHash(const HwConfig& c) { return c.hashHex(); }

// The host interface (vdla/hw/interface_table.h) as typed localparams, at the
// widths the RTL compares them at: 12-bit AXI-Lite addresses, 8-bit error
// codes, 4-bit states.
void printInterface(std::ostream& o) {
  char line[160];
  o << "\n  // Host interface (vdla/hw/interface_table.h): AXI-Lite register offsets.\n";
#define VDLA_HW_X(name, sv, offset, access, meaning)                                               \
  std::snprintf(line, sizeof line, "  localparam logic [11:0] REG_%s = 12'h%03x;\n", #sv, offset); \
  o << line;
  VDLA_HW_REGISTERS(VDLA_HW_X)
#undef VDLA_HW_X
  std::snprintf(line, sizeof line, "  localparam logic [31:0] UNMAPPED_READ = 32'h%08x;\n", regs::kUnmappedRead);
  o << line << "  // CTRL bits.\n";
#define VDLA_HW_X(name, sv, bit, meaning) o << "  localparam int CTRL_" #sv " = " << bit << ";\n";
  VDLA_HW_CTRL_BITS(VDLA_HW_X)
#undef VDLA_HW_X
  o << "  // Error codes (ERROR_CODE[7:0]).\n  localparam logic [7:0] E_NONE = 8'd0;\n";
#define VDLA_HW_X(name, sv, code, meaning) \
  o << "  localparam logic [7:0] E_" #sv " = 8'd" << code << ";  // " << meaning << "\n";
  VDLA_HW_ERRORS(VDLA_HW_X)
#undef VDLA_HW_X
  o << "  // Module states (MODULE_STATE, 4 bits per module).\n";
#define VDLA_HW_X(name, sv, value, label, meaning) \
  o << "  localparam logic [3:0] S_" #sv " = 4'd" << value << ";  // " << meaning << "\n";
  VDLA_HW_STATES(VDLA_HW_X)
#undef VDLA_HW_X
  o << "  // Performance counter indices.\n";
#define VDLA_HW_X(name, sv, meaning) \
  o << "  localparam int CNT_" #sv " = " << regs::kCnt##name << ";  // " << meaning << "\n";
  VDLA_HW_COUNTERS(VDLA_HW_X)
#undef VDLA_HW_X
  o << "  localparam int NUM_COUNTERS = " << regs::kNumCounters << ";\n";
}

}  // namespace

std::string generateHlsHeader(const HwConfig& c, const std::string& source) {
  std::ostringstream o;
  o << "// Generated by vdla_hwgen from " << source << " (config '" << c.name << "'). Do not edit.\n"
    << "#pragma once\n#include <cstdint>\n\n"
    << "#define VDLA_CONFIG_NAME \"" << c.name << "\"\n\n"
    << "namespace vdla_params {\n\n"
    << "constexpr uint64_t CONFIG_HASH = 0x" << hexHash(c) << "ull;\n";
  for (const Param& p : collectParams(c)) {
    o << "constexpr int " << p.name << " = " << p.value << ";";
    if (!p.comment.empty()) o << "  // " << p.comment;
    o << "\n";
  }
  o << "\n}  // namespace vdla_params\n";
  return o.str();
}

std::string generateSvPackage(const HwConfig& c, const std::string& source) {
  std::ostringstream o;
  o << "// Generated by vdla_hwgen from " << source << " (config '" << c.name << "'). Do not edit.\n"
    << "package vdla_pkg;\n\n"
    << "  localparam logic [63:0] CONFIG_HASH = 64'h" << hexHash(c) << ";\n";
  for (const Param& p : collectParams(c)) {
    o << "  localparam int " << p.name << " = " << p.value << ";";
    if (!p.comment.empty()) o << "  // " << p.comment;
    o << "\n";
  }
  printInterface(o);
  o << "\nendpackage\n";
  return o.str();
}

std::string generateInterfaceDoc() {
  std::ostringstream o;
  char offset[16];
  o << "| offset | name | access | meaning |\n|--------|------|--------|---------|\n";
#define VDLA_HW_X(name, sv, off, access, meaning)      \
  std::snprintf(offset, sizeof offset, "0x%03x", off); \
  o << "| " << offset << " | " #sv " | " << access << " | " << meaning << " |\n";
  VDLA_HW_REGISTERS(VDLA_HW_X)
#undef VDLA_HW_X
  o << "\nCTRL bits:\n\n| bit | name | meaning |\n|-----|------|---------|\n";
#define VDLA_HW_X(name, sv, bit, meaning) o << "| " << bit << " | " #sv " | " << meaning << " |\n";
  VDLA_HW_CTRL_BITS(VDLA_HW_X)
#undef VDLA_HW_X
  o << "\nError codes (ERROR_CODE[7:0]; 0 is none):\n\n| code | name | meaning |\n|------|------|---------|\n";
#define VDLA_HW_X(name, sv, code, meaning) o << "| " << code << " | " #sv " | " << meaning << " |\n";
  VDLA_HW_ERRORS(VDLA_HW_X)
#undef VDLA_HW_X
  o << "\nModule states (MODULE_STATE):\n\n| value | name | meaning |\n|-------|------|---------|\n";
#define VDLA_HW_X(name, sv, value, label, meaning) o << "| " << value << " | " #sv " | " << meaning << " |\n";
  VDLA_HW_STATES(VDLA_HW_X)
#undef VDLA_HW_X
  o << "\nCounters:\n\n| index | name | counts |\n|-------|------|--------|\n";
#define VDLA_HW_X(name, sv, meaning) o << "| " << regs::kCnt##name << " | " #sv " | " << meaning << " |\n";
  VDLA_HW_COUNTERS(VDLA_HW_X)
#undef VDLA_HW_X
  return o.str();
}

}  // namespace vdla::hw
