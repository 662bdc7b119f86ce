#pragma once
// The memory system behind the accelerator's AXI master, in accelerator clock
// cycles: what the cycle simulator's DRAM model does (simulator/cycle) and
// what the compiler's cost model expects of it (compiler/src/accel/tiling.cpp).
#include <cstdint>

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
};

// The boards' DRAM: a Zynq-7000 HP port at 100 MHz (pynq, tiny) is 64 bits
// with ~32 cycles of read latency; Zynq UltraScale+ HP ports (ultra96,
// zcu104) are 128 bits at 200-300 MHz, where the same DRAM latency is ~48
// cycles.
inline DramTiming defaultDramTiming(const HwConfig& cfg) {
  DramTiming t;
  t.bytes_per_cycle = cfg.axi_data_bits / 8.0;
  const bool fast_clock = cfg.clock_mhz > 150;
  t.read_latency = fast_clock ? 48 : 32;
  t.write_latency = fast_clock ? 24 : 16;
  t.max_outstanding = 8;
  return t;
}

}  // namespace vdla::hw
