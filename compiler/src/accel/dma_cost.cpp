#include "dma_cost.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "vdla/hw/dram_timing.h"

namespace vdla::accel {

namespace {

// Cycles to read `rows` DRAM rows of `row_bytes` each, in the steady state of
// the read engine (vdla_xfer_read): a row is INCR bursts of kMaxBurstBeats
// beats and a shorter last one, at most kMaxOutstandingBursts in flight, the
// data of each arriving in order after the DRAM latency; a burst's slot
// frees when its last beat arrives, and only then can the next burst go
// out. Where the bursts still in flight hold fewer beats than the latency
// (short rows: 34 beats are a burst of 32 and one of 2), the bus idles.
// Simulated over a few rows: the steady-state cycles per row of `beats`.
double readCyclesPerRow(int64_t beats, double latency) {
  std::vector<int64_t> pattern;
  for (int64_t left = beats; left > 0; left -= hw::kMaxBurstBeats)
    pattern.push_back(std::min<int64_t>(left, hw::kMaxBurstBeats));
  const int slots = hw::kMaxOutstandingBursts;
  constexpr int kRows = 12;
  std::vector<double> end;  // data end of each burst
  std::vector<double> row_end;
  for (int r = 0; r < kRows; ++r) {
    for (int64_t len : pattern) {
      const size_t i = end.size();
      const double issue = i >= size_t(slots) ? end[i - size_t(slots)] : 0.0;
      const double start = std::max(issue + latency, i ? end.back() : 0.0);
      end.push_back(start + double(len));
    }
    row_end.push_back(end.back());
  }
  return (row_end[kRows - 1] - row_end[kRows / 2 - 1]) / double(kRows - kRows / 2);
}

}  // namespace

// Cycles to move `rows` DRAM rows of `row_bytes` each. Every row is its own
// INCR bursts (at most kMaxBurstBeats beats), and the load and store engines
// keep at most kMaxOutstandingBursts in flight: a burst holds its slot for the
// DRAM latency and its beats, so rows shorter than about a quarter of the
// latency leave the bus idle.
double transferCycles(double rows, double row_bytes, double bus, double latency) {
  if (rows <= 0 || row_bytes <= 0) return 0;
  const double beats = std::ceil(row_bytes / bus);
  const double bursts = std::ceil(beats / hw::kMaxBurstBeats);
  const double per_burst = beats / bursts;
  return rows * bursts * std::max(per_burst, (latency + per_burst) / hw::kMaxOutstandingBursts);
}

// Cycles to read `rows` rows of `row_bytes`: their beats per row, as above.
double readTransferCycles(double rows, double row_bytes, double bus, double latency) {
  if (rows <= 0 || row_bytes <= 0) return 0;
  const int64_t beats = int64_t(std::ceil(row_bytes / bus));
  // The tiling search asks for the same few row lengths thousands of times
  // (the design-space explorer spent two thirds of its time here): each
  // thread keeps the steady state per row length and latency.
  thread_local std::map<std::pair<int64_t, double>, double> per_row;
  const auto key = std::make_pair(beats, latency);
  auto it = per_row.find(key);
  if (it == per_row.end()) it = per_row.emplace(key, readCyclesPerRow(beats, latency)).first;
  return rows * it->second;
}

}  // namespace vdla::accel
