#include "vdla/hw/config.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"

namespace vdla::hw {
namespace {

using nlohmann::json;

bool isPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

uint32_t ceilLog2(uint64_t v) {
  uint32_t bits = 0;
  while ((uint64_t(1) << bits) < v) ++bits;
  return bits;
}

uint64_t fnv1a64(const std::string& text) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// Walks a JSON object, reporting missing, mistyped and unknown fields by their
// dotted path ("buffers_kib.weight").
class FieldReader {
 public:
  FieldReader(const json& obj, std::string path, const std::string& origin)
      : obj_(obj), path_(std::move(path)), origin_(origin) {
    if (!obj_.is_object()) fail(path_.empty() ? "(top level)" : path_, "must be a JSON object");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw Error(origin_ + ": field '" + field + "': " + reason);
  }
  std::string fieldPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  const json& get(const std::string& key) {
    seen_.insert(key);
    auto it = obj_.find(key);
    if (it == obj_.end()) fail(fieldPath(key), "is missing");
    return *it;
  }
  FieldReader object(const std::string& key) { return FieldReader(get(key), fieldPath(key), origin_); }

  std::string string(const std::string& key, bool optional = false) {
    if (optional && !obj_.contains(key)) {
      seen_.insert(key);
      return "";
    }
    const json& v = get(key);
    if (!v.is_string()) fail(fieldPath(key), "must be a string");
    return v.get<std::string>();
  }
  // `hi_reason`, when given, says why values above `hi` are refused.
  uint64_t unsignedInt(const std::string& key, uint64_t lo, uint64_t hi, const char* hi_reason = nullptr) {
    const json& v = get(key);
    if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() < 0))
      fail(fieldPath(key), "must be a non-negative integer, got " + v.dump());
    uint64_t x = v.get<uint64_t>();
    if (x < lo || x > hi)
      fail(fieldPath(key), "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                               std::to_string(x) + (x > hi && hi_reason ? std::string(": ") + hi_reason : ""));
    return x;
  }
  uint64_t powerOfTwo(const std::string& key, uint64_t lo, uint64_t hi) {
    uint64_t x = unsignedInt(key, lo, hi);
    if (!isPowerOfTwo(x)) fail(fieldPath(key), "must be a power of two, got " + std::to_string(x));
    return x;
  }
  double number(const std::string& key, double lo, double hi) {
    const json& v = get(key);
    if (!v.is_number()) fail(fieldPath(key), "must be a number, got " + v.dump());
    double x = v.get<double>();
    if (!(x > lo && x <= hi))
      fail(fieldPath(key), "must be in (" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v.dump());
    return x;
  }
  uint32_t oneOf(const std::string& key, std::initializer_list<uint64_t> allowed) {
    const json& v = get(key);
    std::string list;
    for (uint64_t a : allowed) list += (list.empty() ? "" : ", ") + std::to_string(a);
    if (v.is_number_unsigned())
      for (uint64_t a : allowed)
        if (v.get<uint64_t>() == a) return uint32_t(a);
    fail(fieldPath(key), "must be one of {" + list + "}, got " + v.dump());
  }
  bool boolean(const std::string& key) {
    const json& v = get(key);
    if (!v.is_boolean()) fail(fieldPath(key), "must be true or false, got " + v.dump());
    return v.get<bool>();
  }
  bool has(const std::string& key) const { return obj_.contains(key); }
  // Unknown keys are almost always typos; refuse them rather than ignore them.
  void rejectUnknown() const {
    for (auto it = obj_.begin(); it != obj_.end(); ++it)
      if (!seen_.count(it.key())) fail(fieldPath(it.key()), "is not a known field");
  }

 private:
  const json& obj_;
  std::string path_;
  const std::string& origin_;
  std::set<std::string> seen_;
};

// The buffers by their JSON names (buffers_kib, ultraram), in that order.
const std::pair<const char*, Memory> kBufferNames[] = {{"uop", Memory::Uop},
                                                       {"input", Memory::Input},
                                                       {"weight", Memory::Weight},
                                                       {"accumulator", Memory::Acc},
                                                       {"output", Memory::Output}};

json hardwareJson(const HwConfig& c) {
  json j{
      {"target", {{"board", c.board}, {"part", c.part}, {"clock_mhz", c.clock_mhz}}},
      {"gemm", {{"batch", c.batch}, {"block_in", c.block_in}, {"block_out", c.block_out}}},
      {"data_bits",
       {{"input", c.input_bits}, {"weight", c.weight_bits}, {"accumulator", c.acc_bits}, {"output", c.output_bits}}},
      {"buffers_kib",
       {{"uop", c.uop_bytes / 1024},
        {"input", c.input_bytes / 1024},
        {"weight", c.weight_bytes / 1024},
        {"accumulator", c.acc_bytes / 1024},
        {"output", c.output_bytes / 1024}}},
      {"axi", {{"data_bits", c.axi_data_bits}}},
      {"queues", {{"command_depth", c.command_queue_depth}, {"token_depth", c.token_queue_depth}}},
      {"isa",
       {{"dram_addr_bits", c.dram_addr_bits},
        {"xfer_size_bits", c.xfer_size_bits},
        {"pad_bits", c.pad_bits},
        {"loop_iter_bits", c.loop_iter_bits},
        {"alu_imm_bits", c.alu_imm_bits}}},
  };
  // Extensions enter the canonical form only when one is on, so that a config
  // without them keeps the hash it had before they existed.
  if (c.fused_requant) j["extensions"]["fused_requant"] = true;
  if (c.float_requant) j["extensions"]["float_requant"] = true;
  if (c.depthwise_taps) j["extensions"]["depthwise_taps"] = c.depthwise_taps;
  if (c.alu_bias_clear) j["extensions"]["alu_bias_clear"] = true;
  if (c.gemm_requant) j["extensions"]["gemm_requant"] = true;
  if (c.acc_dual_read) j["extensions"]["acc_dual_read"] = true;
  if (c.inp_writeback) j["extensions"]["inp_writeback"] = true;
  // Likewise the UltraRAM placement, in buffers_kib's order.
  for (const auto& [key, mem] : kBufferNames)
    if (c.inUltraRam(mem)) j["ultraram"].push_back(key);
  return j;
}

}  // namespace

const char* memoryName(Memory m) {
  switch (m) {
    case Memory::Uop: return "UOP";
    case Memory::Weight: return "WGT";
    case Memory::Input: return "INP";
    case Memory::Acc: return "ACC";
    case Memory::Output: return "OUT";
    case Memory::Acc8: return "ACC8";
  }
  return "?";
}

uint32_t HwConfig::entryBytes(Memory m) const {
  switch (m) {
    case Memory::Uop: return 4;
    case Memory::Weight: return block_out * block_in * weight_bits / 8;
    case Memory::Input: return batch * block_in * input_bits / 8;
    case Memory::Acc: return batch * block_out * acc_bits / 8;
    case Memory::Output: return batch * block_out * output_bits / 8;
    case Memory::Acc8: return batch * block_out;
  }
  return 0;
}

uint32_t HwConfig::depth(Memory m) const {
  switch (m) {
    case Memory::Uop: return uint32_t(uop_bytes / entryBytes(m));
    case Memory::Weight: return uint32_t(weight_bytes / entryBytes(m));
    case Memory::Input: return uint32_t(input_bytes / entryBytes(m));
    case Memory::Acc:
    case Memory::Acc8: return uint32_t(acc_bytes / entryBytes(Memory::Acc));
    case Memory::Output: return uint32_t(output_bytes / entryBytes(m));
  }
  return 0;
}

uint32_t HwConfig::indexBits(Memory m) const { return std::max<uint32_t>(1, ceilLog2(depth(m))); }

std::string HwConfig::hashHex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(hash));
  return buf;
}

HwConfig parseConfig(const std::string& json_text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw Error(origin + ": invalid JSON: " + e.what());
  }
  FieldReader top(doc, "", origin);
  HwConfig c;
  c.name = top.string("name");
  if (c.name.empty()) top.fail("name", "must not be empty");
  c.description = top.string("description", /*optional=*/true);

  FieldReader target = top.object("target");
  c.board = target.string("board");
  c.part = target.string("part");
  c.clock_mhz = target.number("clock_mhz", 0, 1000);
  target.rejectUnknown();

  FieldReader gemm = top.object("gemm");
  c.batch = uint32_t(gemm.powerOfTwo("batch", 1, 16));
  c.block_in = uint32_t(gemm.powerOfTwo("block_in", 1, 128));
  c.block_out = uint32_t(gemm.powerOfTwo("block_out", 1, 128));
  gemm.rejectUnknown();

  // The datapath is int8 x int8 -> int32; the fields exist so that a config
  // states its widths explicitly and a wider datapath can be added later.
  FieldReader bits = top.object("data_bits");
  c.input_bits = bits.oneOf("input", {8});
  c.weight_bits = bits.oneOf("weight", {8});
  c.acc_bits = bits.oneOf("accumulator", {32});
  c.output_bits = bits.oneOf("output", {8});
  bits.rejectUnknown();

  FieldReader buffers = top.object("buffers_kib");
  constexpr uint64_t kMaxKib = 64 * 1024;
  c.uop_bytes = buffers.powerOfTwo("uop", 1, kMaxKib) * 1024;
  c.input_bytes = buffers.powerOfTwo("input", 1, kMaxKib) * 1024;
  c.weight_bytes = buffers.powerOfTwo("weight", 1, kMaxKib) * 1024;
  c.acc_bytes = buffers.powerOfTwo("accumulator", 1, kMaxKib) * 1024;
  c.output_bytes = buffers.powerOfTwo("output", 1, kMaxKib) * 1024;
  for (const auto& [key, mem] : kBufferNames)
    if (c.depth(mem) == 0)
      buffers.fail(std::string("buffers_kib.") + key,
                   "holds no complete entry of " + std::to_string(c.entryBytes(mem)) + " bytes");
  // GEMM and ALU write the output memory at the accumulator index, so both
  // memories must have one entry per accumulator entry.
  if (c.depth(Memory::Output) != c.depth(Memory::Acc))
    buffers.fail("buffers_kib.output",
                 "must hold as many entries as the accumulator (" + std::to_string(c.depth(Memory::Acc)) +
                     " entries of " + std::to_string(c.entryBytes(Memory::Output)) +
                     " bytes = " + std::to_string(c.depth(Memory::Acc) * c.entryBytes(Memory::Output) / 1024) +
                     " KiB), got " + std::to_string(c.depth(Memory::Output)) + " entries");
  buffers.rejectUnknown();

  FieldReader axi = top.object("axi");
  c.axi_data_bits = axi.oneOf("data_bits", {32, 64, 128, 256, 512});
  // The RTL's fetch (vdla_fetch.sv) assembles each 128-bit instruction from
  // one or more whole beats; a wider beat would carry several instructions,
  // which it cannot split (its model stops at elaboration).
  if (c.axi_data_bits > kMaxAxiDataBits)
    axi.fail("axi.data_bits", "must be at most " + std::to_string(kMaxAxiDataBits) + ", got " +
                                  std::to_string(c.axi_data_bits) +
                                  ": the RTL's instruction fetch takes one 128-bit instruction from one or more "
                                  "whole AXI beats and cannot split a wider beat into several instructions");
  // The RTL's store (vdla_store.sv) writes each OUT entry as one or more whole
  // beats; a beat wider than an entry would need byte strobes it does not drive.
  if (c.axi_data_bits > c.entryBytes(Memory::Output) * 8)
    axi.fail("axi.data_bits", "must be at most the OUT entry's " + std::to_string(c.entryBytes(Memory::Output) * 8) +
                                  " bits (batch x block_out x 8), got " + std::to_string(c.axi_data_bits) +
                                  ": the RTL's store writes each OUT entry as whole AXI beats");
  axi.rejectUnknown();

  FieldReader queues = top.object("queues");
  c.command_queue_depth = uint32_t(queues.unsignedInt("command_depth", 1, 4096));
  c.token_queue_depth = uint32_t(queues.unsignedInt(
      "token_depth", 1, kMaxTokenQueueDepth,
      "the RTL reports each token queue's fill level in 8 bits (register TOKENS, the error info of leftover tokens)"));
  queues.rejectUnknown();

  FieldReader isa = top.object("isa");
  c.dram_addr_bits = uint32_t(isa.unsignedInt(
      "dram_addr_bits", 16, kMaxDramAddrBits,
      "the RTL's AXI master drives 32-bit byte addresses (the Zynq HP ports' width); wider addresses would be cut"));
  c.xfer_size_bits = uint32_t(isa.unsignedInt("xfer_size_bits", 4, 16));
  c.pad_bits = uint32_t(isa.unsignedInt("pad_bits", 1, 8));
  c.loop_iter_bits = uint32_t(isa.unsignedInt("loop_iter_bits", 1, 16));
  c.alu_imm_bits = uint32_t(isa.unsignedInt("alu_imm_bits", 2, 32));
  isa.rejectUnknown();

  // Optional datapath extensions; absent means off, and a config with every
  // extension off describes exactly the base hardware.
  if (top.has("extensions")) {
    FieldReader ext = top.object("extensions");
    c.fused_requant = ext.has("fused_requant") && ext.boolean("fused_requant");
    c.float_requant = ext.has("float_requant") && ext.boolean("float_requant");
    if (ext.has("depthwise_taps"))
      c.depthwise_taps =
          uint32_t(ext.unsignedInt("depthwise_taps", 0, kMaxDepthwiseTaps, "DWGEMM's taps field is 4 bits"));
    c.alu_bias_clear = ext.has("alu_bias_clear") && ext.boolean("alu_bias_clear");
    c.gemm_requant = ext.has("gemm_requant") && ext.boolean("gemm_requant");
    c.acc_dual_read = ext.has("acc_dual_read") && ext.boolean("acc_dual_read");
    c.inp_writeback = ext.has("inp_writeback") && ext.boolean("inp_writeback");
    ext.rejectUnknown();
    // A requantising GEMM runs REQ (or FREQ) on the ALU lanes with the bias
    // added first, as an ALU op with bias_clear does.
    if (c.gemm_requant && !(c.fused_requant && c.alu_bias_clear))
      ext.fail("extensions.gemm_requant",
               "needs extensions.fused_requant and extensions.alu_bias_clear (a requantising GEMM runs REQ with the "
               "bias on the ALU lanes)");
    // FREQ is op 10, after REQ: the ops a config has stay one contiguous range.
    if (c.float_requant && !c.fused_requant)
      ext.fail("extensions.float_requant", "needs extensions.fused_requant (FREQ extends the fused ALU ops)");
    // REQ takes its clip bounds from the two low bytes of the immediate.
    if (c.fused_requant && c.alu_imm_bits < 16)
      ext.fail("extensions.fused_requant",
               "needs isa.alu_imm_bits >= 16 (REQ reads its clip bounds from the immediate's two low bytes), got " +
                   std::to_string(c.alu_imm_bits));
    // DWGEMM puts channel lane_block*block_out + c of the input entry into
    // lane c of the accumulator entry, and tap t into the low product of the
    // GEMM core's multiplier pair t (vdla_gemm.sv). Both sizes are powers of
    // two, so block_in >= block_out makes block_in a multiple.
    if (c.depthwise_taps && c.block_in < c.block_out)
      ext.fail("extensions.depthwise_taps",
               "needs gemm.block_in >= gemm.block_out (each accumulator lane takes one channel of an "
               "input entry), got " +
                   std::to_string(c.block_in) + " and " + std::to_string(c.block_out));
    if (c.depthwise_taps > (c.block_out + 1) / 2)
      ext.fail("extensions.depthwise_taps", "at most " + std::to_string((c.block_out + 1) / 2) +
                                                " (one multiplier pair of the GEMM core per tap, block_out " +
                                                std::to_string(c.block_out) + "), got " +
                                                std::to_string(c.depthwise_taps));
    // STORE INP writes an OUT entry into an INP entry whole.
    if (c.inp_writeback && c.block_in * c.input_bits != c.block_out * c.output_bits)
      ext.fail("extensions.inp_writeback",
               "needs INP and OUT entries of one width (STORE INP copies an OUT entry into an INP entry), got " +
                   std::to_string(c.block_in * c.input_bits) + " and " + std::to_string(c.block_out * c.output_bits) +
                   " bits per batch row");
  }
  // Optional: the buffers synthesis places in UltraRAM.
  if (top.has("ultraram")) {
    const json& list = top.get("ultraram");
    if (!list.is_array()) top.fail("ultraram", "must be a list of buffer names (buffers_kib's), got " + list.dump());
    for (size_t k = 0; k < list.size(); ++k) {
      const std::string where = "ultraram[" + std::to_string(k) + "]";
      std::string names;
      bool known = false;
      for (const auto& [key, mem] : kBufferNames) {
        names += (names.empty() ? "" : ", ") + std::string(key);
        if (list[k].is_string() && list[k].get<std::string>() == key) {
          if (c.inUltraRam(mem)) top.fail(where, "names '" + std::string(key) + "' twice");
          c.ultraram |= 1u << unsigned(mem);
          known = true;
        }
      }
      if (!known) top.fail(where, "must be one of {" + names + "}, got " + list[k].dump());
    }
  }
  top.rejectUnknown();

  // The instruction and micro-op formats have fixed sizes; a config whose
  // buffers need wider indices than they can carry is refused here.
  std::string why = IsaLayout::whyUnencodable(c);
  if (!why.empty()) throw Error(origin + ": buffers_kib/isa: " + why);

  c.hash = fnv1a64(hardwareJson(c).dump());
  return c;
}

HwConfig loadConfig(const std::string& path_or_name) {
  if (const std::string* text = builtinConfigText(path_or_name)) return parseConfig(*text, "builtin:" + path_or_name);
  std::ifstream in(path_or_name, std::ios::binary);
  if (!in) {
    std::string names;
    for (const auto& n : builtinConfigNames()) names += (names.empty() ? "" : ", ") + n;
    throw Error(path_or_name + ": cannot open config file (and it is not a built-in config: " + names + ")");
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parseConfig(ss.str(), path_or_name);
}

std::string configToJson(const HwConfig& c, int indent) {
  json j = hardwareJson(c);
  j["name"] = c.name;
  j["description"] = c.description;
  json derived;
  const Memory mems[] = {Memory::Uop, Memory::Weight, Memory::Input, Memory::Acc, Memory::Output};
  for (Memory m : mems)
    derived["memories"][memoryName(m)] = {
        {"entry_bytes", c.entryBytes(m)}, {"depth", c.depth(m)}, {"index_bits", c.indexBits(m)}};
  derived["macs_per_cycle"] = c.macsPerCycle();
  derived["peak_gops"] = 2.0 * double(c.macsPerCycle()) * c.clock_mhz / 1000.0;
  derived["hash"] = c.hashHex();
  j["derived"] = derived;
  return j.dump(indent);
}

}  // namespace vdla::hw
