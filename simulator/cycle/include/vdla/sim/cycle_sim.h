#pragma once
// The cycle-accurate simulator: the VDLA RTL (vdla_hw/rtl), Verilated with
// SystemC output, inside a SystemC top that models DRAM behind the AXI master
// port (latency, outstanding bursts, bandwidth) on a vdla::sim::Dram, and that
// drives the AXI-Lite control slave the way a driver does: program address and
// count, start, poll for done.
//
// One Verilated model is built per shipped configuration (see
// cycleSimConfigs()); a config whose hash matches none of them is refused.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::sim {

// Timing of the DRAM behind the AXI port, in accelerator clock cycles.
struct DramTiming {
  uint32_t read_latency = 32;   // address accepted -> first data beat
  uint32_t write_latency = 16;  // last data beat -> write response
  uint32_t max_outstanding = 8;  // bursts in flight per direction
  double bytes_per_cycle = 8;   // per direction; at most one beat per cycle
};

// The board's defaults: a Zynq-7000 HP port at 100 MHz (pynq, tiny) is 64 bits
// with ~32 cycles of read latency; Zynq UltraScale+ HP ports (ultra96, zcu104)
// are 128 bits at 200-250 MHz, where the same DRAM latency is ~48 cycles.
DramTiming defaultDramTiming(const hw::HwConfig& cfg);

struct CycleSimOptions {
  uint64_t max_cycles = 2'000'000'000;  // a run that reaches this stops with an error
  std::string trace_path;                // Chrome/Perfetto trace JSON of module activity
  std::string waves_path;                // VCD waveform of the whole design
  std::optional<DramTiming> dram;        // default: defaultDramTiming(cfg)
};

class CycleHarness;

class CycleSimulator {
 public:
  // Throws vdla::Error if no Verilated model matches `cfg`.
  CycleSimulator(const hw::HwConfig& cfg, Dram& dram, CycleSimOptions options = {});
  ~CycleSimulator();
  CycleSimulator(const CycleSimulator&) = delete;
  CycleSimulator& operator=(const CycleSimulator&) = delete;

  // Runs `count` instructions at `insn_addr` to the end. The statistics hold
  // the program's instruction/byte counts and the hardware counters
  // (stats.cycle_counters). Throws vdla::Error, naming the instruction and the
  // reason, on a hardware error, an out-of-range AXI access, a deadlock or the
  // cycle limit; the accelerator is reset afterwards so the next run starts
  // clean (on-chip memories keep their contents, as in fsim).
  ExecutionStats run(uint64_t insn_addr, uint32_t count, const std::atomic<bool>* cancel = nullptr);

  void setOptions(const CycleSimOptions& options);
  const CycleSimOptions& options() const { return options_; }
  const hw::HwConfig& config() const { return cfg_; }

 private:
  hw::HwConfig cfg_;
  Dram& dram_;
  CycleSimOptions options_;
  std::unique_ptr<CycleHarness> harness_;
};

// Names of the configs with a Verilated model in this build.
std::vector<std::string> cycleSimConfigs();
// True if `cfg` has a Verilated model (matched by configuration hash).
bool cycleSimSupports(const hw::HwConfig& cfg);

}  // namespace vdla::sim
