#include "vdla/explore/result_json.h"

namespace vdla::explore {

nlohmann::json pointResultToJson(const PointResult& r) {
  const hw::HwConfig& c = r.point.config;
  nlohmann::json j;
  j["name"] = c.name;
  j["hash"] = c.hashHex();
  j["batch"] = c.batch;
  j["block_in"] = c.block_in;
  j["block_out"] = c.block_out;
  j["macs_per_cycle"] = c.macsPerCycle();
  j["input_kib"] = c.input_bytes / 1024;
  j["weight_kib"] = c.weight_bytes / 1024;
  j["accumulator_kib"] = c.acc_bytes / 1024;
  j["uop_kib"] = c.uop_bytes / 1024;
  j["axi_bits"] = c.axi_data_bits;
  j["clock_mhz"] = c.clock_mhz;
  j["latency_hiding"] = r.point.latency_hiding;
  j["resources"] = {{"lut", r.resources.lut},
                    {"ff", r.resources.ff},
                    {"dsp", r.resources.dsp},
                    {"bram36", r.resources.bram36},
                    {"uram", r.resources.uram}};
  j["fits"] = r.fits();
  j["why_not_fits"] = r.why_not_fits;
  j["complete"] = r.complete;
  j["latency_ms"] = r.latency_ms;
  j["host_ms"] = r.host_ms;
  j["on_front"] = r.on_front;
  nlohmann::json nets = nlohmann::json::array();
  for (const NetworkResult& n : r.networks)
    nets.push_back({{"network", n.network},
                    {"cycles", n.cycles},
                    {"latency_ms", n.latency_ms},
                    {"ideal_cycles", n.ideal_cycles},
                    {"mac_utilisation", n.mac_utilisation},
                    {"host_ms", n.host_ms},
                    {"layers_offloaded", n.layers_offloaded},
                    {"layers_total", n.layers_total},
                    {"why_incomplete", n.why_incomplete}});
  j["networks"] = nets;
  return j;
}

PointResult pointResultFromJson(const nlohmann::json& j, const DesignPoint& point) {
  PointResult r;
  r.point = point;
  const auto& res = j.at("resources");
  r.resources = {res.at("lut").get<double>(), res.at("ff").get<double>(), res.at("dsp").get<double>(),
                 res.at("bram36").get<double>(), res.value("uram", 0.0)};
  r.why_not_fits = j.at("why_not_fits").get<std::string>();
  r.complete = j.at("complete").get<bool>();
  r.latency_ms = j.at("latency_ms").get<double>();
  r.host_ms = j.at("host_ms").get<double>();
  for (const auto& n : j.at("networks")) {
    NetworkResult x;
    x.network = n.at("network").get<std::string>();
    x.cycles = n.at("cycles").get<double>();
    x.latency_ms = n.at("latency_ms").get<double>();
    x.ideal_cycles = n.at("ideal_cycles").get<double>();
    x.mac_utilisation = n.at("mac_utilisation").get<double>();
    x.host_ms = n.at("host_ms").get<double>();
    x.layers_offloaded = n.at("layers_offloaded").get<int>();
    x.layers_total = n.at("layers_total").get<int>();
    x.why_incomplete = n.at("why_incomplete").get<std::string>();
    r.networks.push_back(x);
  }
  return r;
}

}  // namespace vdla::explore
