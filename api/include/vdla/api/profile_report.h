#pragma once
// The report of `vdla profile`: per offloaded layer, the cycles of each
// latency-hiding mode against the ideal (MACs / MACs per cycle), as a table,
// JSON and an SVG bar chart.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "vdla/api/host_work.h"

namespace vdla::api {

struct LayerMeasurement {
  double cycles = 0;       // measured (cycle device) or estimated (cost model)
  double gemm_cycles = 0;  // cycles the GEMM core consumed a micro-op
  bool measured = false;
  double estimated_cycles = 0;  // the compiler's cost model, beside a measurement
  // Measured only: the bytes the layer's instructions move, and the cycles
  // its load, compute and store modules were busy on them (waiting for DRAM
  // included); the busiest of the three is what bounds the layer.
  uint64_t dram_bytes_read = 0, dram_bytes_written = 0;
  uint64_t load_busy = 0, compute_busy = 0, store_busy = 0;
  // "load", "compute" or "store"; "" where nothing was measured.
  std::string bound() const;
};

struct LayerProfile {
  std::string name, shape;
  int64_t macs = 0;
  double ideal_cycles = 0;
  std::map<std::string, LayerMeasurement> by_mode;  // "on" / "off"
};

struct ProfileReport {
  std::string model, device, config;
  double clock_mhz = 0;
  std::vector<std::string> modes;  // in the order given
  std::vector<LayerProfile> layers;
  std::map<std::string, HostWork> host_work;  // per mode: the host's share of the run
};

std::string profileTable(const ProfileReport& report);
nlohmann::json profileJson(const ProfileReport& report);
std::string profileSvg(const ProfileReport& report);

}  // namespace vdla::api
