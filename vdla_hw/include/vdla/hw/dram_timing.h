#pragma once
// The memory system behind the accelerator's AXI master, in accelerator clock
// cycles: what the cycle simulator's DRAM model does (simulator/cycle) and
// what the compiler's cost model expects of it (compiler/src/accel/tiling.cpp).
#include <cctype>
#include <cstdint>
#include <string>

#include "vdla/hw/config.h"

namespace vdla::hw {

// The RTL's DMA engines (vdla_xfer_read.sv, vdla_store.sv; from the generated
// package): each DRAM row becomes INCR bursts of at most kMaxBurstBeats beats,
// at most kMaxOutstandingBursts of them in flight per engine.
constexpr uint32_t kMaxBurstBeats = 32;
constexpr uint32_t kMaxOutstandingBursts = 4;

struct DramTiming {
  uint32_t read_latency = 32;    // address accepted -> first data beat
  uint32_t write_latency = 16;   // last data beat -> write response
  uint32_t max_outstanding = 8;  // bursts the DRAM accepts in flight per direction
  double bytes_per_cycle = 8;    // per direction; at most one beat per cycle
  // What reads and writes together may move per cycle (the DDR behind the
  // port serves both); 0: no shared limit.
  double shared_bytes_per_cycle = 0;
};

// A board's memory system in physical units, which the accelerator's clock
// turns into cycles. The latencies are those of the PS's DDR controller seen
// from a PL high-performance port: about 320 ns for a read on the Zynq-7000
// (32 cycles at 100 MHz) and 160 ns on Zynq UltraScale+ (48 cycles at 300
// MHz); a write is acknowledged in half that.
struct DramSystem {
  double read_latency_ns = 0, write_latency_ns = 0;
  // Sustained DDR bandwidth shared by reads and writes, GB/s; 0: not a
  // limit at the port's rates (not modelled).
  double ddr_gb_per_s = 0;
};

// The DDR efficiency assumed for sustained streams (refresh, bank and
// read/write turnarounds): 80% of the interface's peak.
constexpr double kDdrEfficiency = 0.8;

// Parts that are neither Zynq-7000 ("xc7z...") nor Zynq UltraScale+
// ("xczu...") get the UltraScale+ figures.
inline DramSystem dramSystemOf(const HwConfig& cfg) {
  auto startsWith = [](const std::string& s, const char* prefix) {
    for (size_t i = 0; prefix[i]; ++i)
      if (i >= s.size() || std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
    return true;
  };
  DramSystem s;
  const bool zynq7000 = startsWith(cfg.part, "xc7z");
  s.read_latency_ns = zynq7000 ? 320 : 160;
  s.write_latency_ns = zynq7000 ? 160 : 80;
  // PYNQ-Z1/Z2: 16-bit DDR3 at 1050 MT/s, 2.1 GB/s peak. At 150 MHz the
  // 64-bit port moves 1.2 GB/s per direction, so reads and writes together
  // can ask for more than the DDR gives. The UltraScale+ boards' DDR
  // (Ultra96-V2: 32-bit LPDDR4; ZCU104: 64-bit DDR4) is not modelled as a
  // limit, although on Ultra96 both directions at full rate (9.2 GB/s at
  // 287 MHz) may ask for more than its LPDDR4 sustains.
  if (startsWith(cfg.board, "pynq")) s.ddr_gb_per_s = 2.1 * kDdrEfficiency;
  return s;
}

// Cycles of `ns` at `clock_mhz`, rounded to the nearest cycle (at least 1).
inline uint32_t cyclesOf(double ns, double clock_mhz) {
  const double c = ns * clock_mhz / 1000.0 + 0.5;
  return c < 1 ? 1 : static_cast<uint32_t>(c);
}

// The config's board at the config's clock: pynq-classic and tiny (100 MHz)
// 32/16 cycles, pynq (150 MHz) 48/24 and 11.2 shared bytes per cycle,
// ultra96 (287 MHz) 46/23, zcu104 (300 MHz) 48/24.
inline DramTiming defaultDramTiming(const HwConfig& cfg) {
  const DramSystem s = dramSystemOf(cfg);
  const double mhz = cfg.clock_mhz > 0 ? cfg.clock_mhz : 100;
  DramTiming t;
  t.bytes_per_cycle = cfg.axi_data_bits / 8.0;
  t.read_latency = cyclesOf(s.read_latency_ns, mhz);
  t.write_latency = cyclesOf(s.write_latency_ns, mhz);
  t.max_outstanding = 8;
  t.shared_bytes_per_cycle = s.ddr_gb_per_s > 0 ? s.ddr_gb_per_s * 1000.0 / mhz : 0;
  return t;
}

}  // namespace vdla::hw
