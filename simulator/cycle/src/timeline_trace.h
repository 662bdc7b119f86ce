#pragma once
// Module activity over time for Chrome/Perfetto (chrome://tracing, ui.perfetto.dev):
// one track per module (load, compute, store), one event per interval in which
// a module stayed in the same state on the same instruction. Consecutive
// cycles are coalesced while they are recorded, so the cost is per change.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "vdla/sim/execution_stats.h"

namespace vdla::sim {

class TimelineTrace {
 public:
  // A trace port value: {state[3:0], instruction index[27:0]}.
  void sample(int module, uint32_t value, uint64_t cycle) {
    if (value == last_[module]) return;
    close(module, cycle);
    last_[module] = value;
    since_[module] = cycle;
  }
  void finish(uint64_t cycle);
  void clear();
  // `describe(index)` names an instruction ("GEMM", "LOAD INP", ...).
  void write(const std::string& path, double ns_per_cycle,
             const std::function<std::string(uint32_t index)>& describe) const;
  size_t events() const { return intervals_.size(); }
  // The intervals as run statistics, in cycles from `origin`.
  std::vector<ExecutionStats::ActivityInterval> activity(
      uint64_t origin, const std::function<std::string(uint32_t index)>& describe) const;

 private:
  struct Interval {
    int module;
    uint32_t state, index;
    uint64_t begin, end;
  };
  void close(int module, uint64_t cycle);

  uint32_t last_[3] = {0, 0, 0};
  uint64_t since_[3] = {0, 0, 0};
  std::vector<Interval> intervals_;
};

}  // namespace vdla::sim
