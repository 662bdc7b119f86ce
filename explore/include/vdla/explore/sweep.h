// Evaluates design points on the local cores. Each finished point is
// appended to a cache file (JSON lines keyed by designPointKey), so that an
// interrupted sweep resumes where it stopped and a repeated one is free.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vdla/explore/design_point.h"

namespace vdla::explore {

struct SweepOptions {
  unsigned threads = 0;    // 0: every hardware thread
  std::string cache_path;  // "" : no cache
  // Called (from one thread at a time) after each point: done, total, and
  // how many of the done ones came from the cache.
  std::function<void(size_t done, size_t total, size_t cached)> progress;
};

struct SweepStats {
  size_t evaluated = 0, cached = 0;
  double seconds = 0;
};

// Results in the order of `points`.
std::vector<PointResult> runSweep(const std::vector<DesignPoint>& points, const std::vector<NetworkWorkload>& networks,
                                  const ResourceModel& model, const FpgaPart& part, const SweepOptions& options,
                                  SweepStats* stats = nullptr);

}  // namespace vdla::explore
