#pragma once
// The cycle-accurate simulator: the VDLA RTL (vdla_hw/rtl), Verilated with
// SystemC output, inside a SystemC top that models DRAM behind the AXI master
// port (latency, outstanding bursts, bandwidth) on a vdla::sim::Dram, and that
// drives the AXI-Lite control slave the way a driver does: program address and
// count, start, poll for done.
//
// The configs of VDLA_CYCLE_CONFIGS have a Verilated model built into this
// library (see cycleSimConfigs()). Any other valid config -- a shipped one or
// a user's own JSON -- gets a model built on demand the first time it is
// simulated (generated, Verilated and compiled into a loadable module, about
// a minute) and cached in cycleModelCacheDir() by config hash and by the
// fingerprint of the RTL and harness sources, so later uses load it at once
// and a model of other sources is never loaded. VDLA_CYCLE_MODEL_BUILD=0
// refuses to build (a config without a built-in or cached model is then an
// error). See docs/hardware.md.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/dram_timing.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::sim {

// Timing of the DRAM behind the AXI port (vdla/hw/dram_timing.h), and the
// boards' defaults.
using hw::defaultDramTiming;
using hw::DramTiming;

struct CycleSimOptions {
  uint64_t max_cycles = 2'000'000'000;  // a run that reaches this stops with an error
  std::string trace_path;               // Chrome/Perfetto trace JSON of module activity
  std::string waves_path;               // VCD waveform of the whole design
  // Module activity in each run's statistics (ExecutionStats::activity), for
  // timelines of many runs (vdla run --trace).
  bool record_activity = false;
  std::optional<DramTiming> dram;  // default: defaultDramTiming(cfg)
};

class CycleHarness;

class CycleSimulator {
 public:
  // Builds `cfg`'s model first if it has none (prepareCycleModel()). Throws
  // vdla::Error if no model can be had (building switched off or failed).
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

// Names of the configs with a Verilated model built into this library (the
// fast path; matched by configuration hash). Every other config is simulated
// on a model built on demand.
std::vector<std::string> cycleSimConfigs();
// True if a model for `cfg` can be had without building (built in, or in the
// cache) or by building it (VDLA_CYCLE_MODEL_BUILD is not 0). Builds nothing.
bool cycleSimSupports(const hw::HwConfig& cfg);

enum class CycleModelSource { BuiltIn, Cache, Built };
struct CycleModelInfo {
  CycleModelSource source;
  std::string path;  // the loadable module of a model built on demand ("" if built in)
};
// Makes `cfg`'s model ready: the built-in one, else the cached one, else one
// built now (progress on stderr) and cached. Throws vdla::Error, naming the
// build log, if it cannot. CycleSimulator does this itself; this is for
// callers that want the build to happen up front or to know where the model
// came from.
CycleModelInfo prepareCycleModel(const hw::HwConfig& cfg);

// Where models built on demand are cached: $VDLA_CACHE_DIR/cycle-models, else
// $XDG_CACHE_HOME/vdla/cycle-models, else ~/.cache/vdla/cycle-models (one
// folder per config hash and source fingerprint; deleting any of them, or
// the whole folder, is safe). Throws vdla::Error if none of those variables
// is set.
std::string cycleModelCacheDir();

}  // namespace vdla::sim
