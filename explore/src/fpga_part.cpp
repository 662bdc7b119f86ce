#include "vdla/explore/fpga_part.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "fpga_parts_json.h"
#include "vdla/hw/error.h"

namespace vdla::explore {

namespace {

std::vector<FpgaPart> loadTable() {
  const nlohmann::json doc = nlohmann::json::parse(kFpgaPartsJson);
  std::vector<FpgaPart> parts;
  for (const auto& [device, d] : doc.at("devices").items()) {
    FpgaPart p;
    p.device = device;
    p.family = d.at("family").get<std::string>();
    p.dsp_cell = d.at("dsp_cell").get<std::string>();
    p.lut = d.at("lut").get<double>();
    p.ff = d.at("ff").get<double>();
    p.dsp = d.at("dsp").get<double>();
    p.bram36 = d.at("bram36").get<double>();
    p.uram = d.at("uram").get<double>();
    p.dpu_clock_mhz = d.at("dpu_clock_mhz").get<double>();
    parts.push_back(p);
  }
  return parts;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::vector<FpgaPart> knownFpgaParts() {
  static const std::vector<FpgaPart> parts = loadTable();
  return parts;
}

const FpgaPart& fpgaPart(const std::string& part_name) {
  static const std::vector<FpgaPart> parts = knownFpgaParts();
  const std::string name = lower(part_name);
  // A full part name is the device followed by package and speed grade; the
  // longest device name that prefixes it wins.
  const FpgaPart* best = nullptr;
  for (const FpgaPart& p : parts)
    if (name.rfind(p.device, 0) == 0 && (!best || p.device.size() > best->device.size())) best = &p;
  if (best) return *best;
  std::string known;
  for (const FpgaPart& p : parts) known += (known.empty() ? "" : ", ") + p.device;
  throw Error("FPGA part '" + part_name + "' is not in vdla_hw/parts/fpga_parts.json (known devices: " + known + ")");
}

}  // namespace vdla::explore
