#include "vdla/explore/design_space.h"

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "vdla/hw/error.h"

namespace vdla::explore {

namespace {

using nlohmann::json;

template <typename T>
std::vector<T> readList(const json& obj, const std::string& key, const std::string& path, const std::string& origin) {
  std::vector<T> out;
  if (!obj.contains(key)) return out;
  const json& v = obj.at(key);
  if (!v.is_array() || v.empty())
    throw Error(origin + ": field '" + path + "': must be a non-empty list, got " + v.dump());
  for (const json& e : v) {
    const bool ok = std::is_same_v<T, bool>       ? e.is_boolean()
                    : std::is_floating_point_v<T> ? e.is_number()
                                                  : e.is_number_unsigned();
    if (!ok) throw Error(origin + ": field '" + path + "': element " + e.dump() + " has the wrong type");
    out.push_back(e.get<T>());
  }
  return out;
}

void rejectUnknown(const json& obj, std::initializer_list<const char*> known, const std::string& path,
                   const std::string& origin) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) throw Error(origin + ": field '" + (path.empty() ? "" : path + ".") + it.key() + "' is not a known field");
  }
}

template <typename T>
std::vector<T> orBase(const std::vector<T>& values, T base) {
  return values.empty() ? std::vector<T>{base} : values;
}

// "-ur" and the initials of the buffers in UltraRAM ("-uriao": input,
// accumulator, output), or "" for none.
std::string ultraRamSuffix(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += n.empty() ? '?' : n[0];
  return s.empty() ? s : "-ur" + s;
}

std::string clockText(double mhz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", mhz);
  return buf;
}

}  // namespace

DesignSpace parseDesignSpace(const std::string& json_text, const std::string& origin) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw Error(origin + ": invalid JSON: " + e.what());
  }
  if (!doc.is_object()) throw Error(origin + ": a design space must be a JSON object");
  rejectUnknown(doc,
                {"base", "gemm", "buffers_kib", "axi_bits", "clock_mhz", "latency_hiding", "depthwise_taps",
                 "acc_dual_read", "ultraram"},
                "", origin);
  DesignSpace s;
  if (doc.contains("base")) {
    if (!doc["base"].is_string()) throw Error(origin + ": field 'base': must be a config name or file");
    s.base = doc["base"].get<std::string>();
  }
  if (doc.contains("gemm")) {
    const json& g = doc["gemm"];
    if (!g.is_object()) throw Error(origin + ": field 'gemm': must be a JSON object");
    rejectUnknown(g, {"batch", "block_in", "block_out"}, "gemm", origin);
    s.batch = readList<uint32_t>(g, "batch", "gemm.batch", origin);
    s.block_in = readList<uint32_t>(g, "block_in", "gemm.block_in", origin);
    s.block_out = readList<uint32_t>(g, "block_out", "gemm.block_out", origin);
  }
  if (doc.contains("buffers_kib")) {
    const json& b = doc["buffers_kib"];
    if (!b.is_object()) throw Error(origin + ": field 'buffers_kib': must be a JSON object");
    rejectUnknown(b, {"uop", "input", "weight", "accumulator"}, "buffers_kib", origin);
    s.uop_kib = readList<uint64_t>(b, "uop", "buffers_kib.uop", origin);
    s.input_kib = readList<uint64_t>(b, "input", "buffers_kib.input", origin);
    s.weight_kib = readList<uint64_t>(b, "weight", "buffers_kib.weight", origin);
    s.acc_kib = readList<uint64_t>(b, "accumulator", "buffers_kib.accumulator", origin);
  }
  s.axi_bits = readList<uint32_t>(doc, "axi_bits", "axi_bits", origin);
  s.clock_mhz = readList<double>(doc, "clock_mhz", "clock_mhz", origin);
  s.latency_hiding = readList<bool>(doc, "latency_hiding", "latency_hiding", origin);
  s.depthwise_taps = readList<uint32_t>(doc, "depthwise_taps", "depthwise_taps", origin);
  s.acc_dual_read = readList<bool>(doc, "acc_dual_read", "acc_dual_read", origin);
  if (doc.contains("ultraram")) {
    const json& v = doc["ultraram"];
    if (!v.is_array() || v.empty())
      throw Error(origin + ": field 'ultraram': must be a non-empty list of buffer lists, got " + v.dump());
    for (const json& set : v) {
      if (!set.is_array())
        throw Error(origin + ": field 'ultraram': element " + set.dump() + " must be a list of buffer names");
      std::vector<std::string> names;
      for (const json& n : set) {
        if (!n.is_string()) throw Error(origin + ": field 'ultraram': element " + n.dump() + " must be a buffer name");
        names.push_back(n.get<std::string>());  // the config validator checks the names
      }
      s.ultraram.push_back(names);
    }
  }
  return s;
}

std::string designSpaceToJson(const DesignSpace& s) {
  json j;
  j["base"] = s.base;
  auto put = [](json& obj, const char* key, const auto& v) {
    if (!v.empty()) obj[key] = v;
  };
  json g = json::object(), b = json::object();
  put(g, "batch", s.batch);
  put(g, "block_in", s.block_in);
  put(g, "block_out", s.block_out);
  put(b, "uop", s.uop_kib);
  put(b, "input", s.input_kib);
  put(b, "weight", s.weight_kib);
  put(b, "accumulator", s.acc_kib);
  if (!g.empty()) j["gemm"] = g;
  if (!b.empty()) j["buffers_kib"] = b;
  put(j, "axi_bits", s.axi_bits);
  put(j, "clock_mhz", s.clock_mhz);
  if (!s.latency_hiding.empty())
    j["latency_hiding"] = std::vector<bool>(s.latency_hiding.begin(), s.latency_hiding.end());
  put(j, "depthwise_taps", s.depthwise_taps);
  if (!s.acc_dual_read.empty()) j["acc_dual_read"] = std::vector<bool>(s.acc_dual_read.begin(), s.acc_dual_read.end());
  put(j, "ultraram", s.ultraram);
  return j.dump(2);
}

namespace {

// The base's DWGEMM window where a point's array can hold it (docs above).
uint32_t defaultTaps(const hw::HwConfig& base, uint32_t block_in, uint32_t block_out) {
  if (block_in < block_out) return 0;
  return std::min<uint32_t>(base.depthwise_taps, (block_out + 1) / 2);
}

// Whether the config's instructions fit their 128 bits (any other problem is
// left to the validator's message).
bool isaLayoutFits(const json& j) {
  try {
    hw::parseConfig(j.dump(), "config");
    return true;
  } catch (const Error& e) {
    return std::string(e.what()).find("bits but instructions are") == std::string::npos;
  }
}

}  // namespace

std::vector<DesignPoint> enumerateDesignSpace(const DesignSpace& s, std::vector<RefusedPoint>* refused) {
  const hw::HwConfig base = hw::loadConfig(s.base);
  const json base_json = json::parse(hw::configToJson(base));
  const std::vector<std::string> base_ultraram = base_json.contains("ultraram")
                                                     ? base_json["ultraram"].get<std::vector<std::string>>()
                                                     : std::vector<std::string>{};
  std::vector<DesignPoint> points;
  for (uint32_t batch : orBase(s.batch, base.batch))
    for (uint32_t bi : orBase(s.block_in, base.block_in))
      for (uint32_t bo : orBase(s.block_out, base.block_out))
        for (uint64_t inp : orBase(s.input_kib, base.input_bytes / 1024))
          for (uint64_t wgt : orBase(s.weight_kib, base.weight_bytes / 1024))
            for (uint64_t acc : orBase(s.acc_kib, base.acc_bytes / 1024))
              for (uint64_t uop : orBase(s.uop_kib, base.uop_bytes / 1024))
                for (uint32_t axi : orBase(s.axi_bits, base.axi_data_bits))
                  for (double clock : orBase(s.clock_mhz, base.clock_mhz))
                    for (uint32_t taps : orBase(s.depthwise_taps, defaultTaps(base, bi, bo)))
                      for (bool dual_read : orBase(s.acc_dual_read, base.acc_dual_read))
                        for (const std::vector<std::string>& uram : orBase(s.ultraram, base_ultraram)) {
                          json j = base_json;
                          j.erase("derived");
                          j["gemm"] = {{"batch", batch}, {"block_in", bi}, {"block_out", bo}};
                          // OUT holds one int8 entry per ACC entry (int32): a quarter of its bytes.
                          const uint64_t out = std::max<uint64_t>(1, acc / 4);
                          j["buffers_kib"] = {
                              {"uop", uop}, {"input", inp}, {"weight", wgt}, {"accumulator", acc}, {"output", out}};
                          j["axi"]["data_bits"] = axi;
                          j["target"]["clock_mhz"] = clock;
                          if (uram.empty())
                            j.erase("ultraram");
                          else
                            j["ultraram"] = uram;
                          if (dual_read)
                            j["extensions"]["acc_dual_read"] = true;
                          else if (j.contains("extensions"))
                            j["extensions"].erase("acc_dual_read");
                          if (taps)
                            j["extensions"]["depthwise_taps"] = taps;
                          else if (j.contains("extensions"))
                            j["extensions"].erase("depthwise_taps");
                          // STORE INP where the base has it and the point's
                          // INP and OUT entries have one width.
                          if (base.inp_writeback && bi * base.input_bits == bo * base.output_bits)
                            j["extensions"]["inp_writeback"] = true;
                          else if (j.contains("extensions"))
                            j["extensions"].erase("inp_writeback");
                          // The base's window on an array whose DWGEMM encoding
                          // (taps, stride and lane_block where it has no
                          // wgt_in) runs past 128 bits while GEMM's fits: the
                          // point goes without DWGEMM rather than being refused
                          // (when dropping bias_clear alone would not do).
                          if (taps && s.depthwise_taps.empty() && !isaLayoutFits(j)) {
                            json no_dw = j, no_bc = j;
                            no_dw["extensions"].erase("depthwise_taps");
                            if (no_bc["extensions"].contains("alu_bias_clear"))
                              no_bc["extensions"].erase("alu_bias_clear");
                            json neither = no_bc;
                            neither["extensions"].erase("depthwise_taps");
                            if (!isaLayoutFits(no_bc) && (isaLayoutFits(no_dw) || isaLayoutFits(neither))) {
                              j = no_dw;
                              taps = 0;
                            }
                          }
                          const std::string name =
                              "b" + std::to_string(batch) + "-" + std::to_string(bi) + "x" + std::to_string(bo) + "-i" +
                              std::to_string(inp) + "-w" + std::to_string(wgt) + "-a" + std::to_string(acc) + "-u" +
                              std::to_string(uop) + "-axi" + std::to_string(axi) + "-" + clockText(clock) + "mhz" +
                              (taps ? "-dw" + std::to_string(taps) : "") + (dual_read ? "-dr" : "") +
                              ultraRamSuffix(uram);
                          j["name"] = name;
                          j["description"] = "design point of a sweep over " + base.name;
                          hw::HwConfig cfg;
                          try {
                            // A point whose deeper buffers leave no GEMM bit for
                            // requant, or no ALU bit for bias_clear (which
                            // gemm_requant needs), keeps the rest of the base's
                            // extensions.
                            if (j.contains("extensions") && j["extensions"].contains("gemm_requant") &&
                                !isaLayoutFits(j)) {
                              json no_rq = j;
                              no_rq["extensions"].erase("gemm_requant");
                              if (isaLayoutFits(no_rq))
                                j = no_rq, j["description"] = j["description"].get<std::string>() +
                                                              " (without gemm_requant, whose flag the GEMM encoding "
                                                              "has no bit for)";
                            }
                            if (j.contains("extensions") && j["extensions"].contains("alu_bias_clear") &&
                                !isaLayoutFits(j)) {
                              j["extensions"].erase("alu_bias_clear");
                              j["extensions"].erase("gemm_requant");
                              j["description"] =
                                  j["description"].get<std::string>() +
                                  " (without alu_bias_clear, whose flag the ALU encoding has no bit for)";
                            }
                            cfg = hw::parseConfig(j.dump(), "config");
                          } catch (const Error& e) {
                            // "config: field ...": the validator's reason, named by the point.
                            if (refused)
                              refused->push_back({name, std::string(e.what()).substr(std::strlen("config: "))});
                            continue;
                          }
                          for (bool lh : orBase(s.latency_hiding, true)) points.push_back({cfg, lh});
                        }
  return points;
}

}  // namespace vdla::explore

namespace vdla::explore {

void applyClockCap(std::vector<DesignPoint>& points, double cap_mhz, const std::string& why,
                   std::vector<RefusedPoint>* refused) {
  std::vector<DesignPoint> kept;
  for (DesignPoint& p : points) {
    if (p.config.clock_mhz <= cap_mhz) {
      kept.push_back(std::move(p));
      continue;
    }
    if (refused && (refused->empty() || refused->back().name != p.config.name))
      refused->push_back({p.config.name, "clock " + clockText(p.config.clock_mhz) + " MHz is above the cap of " +
                                             clockText(cap_mhz) + " MHz (" + why + ")"});
  }
  points = std::move(kept);
}

}  // namespace vdla::explore
