// Calibration for post-training quantisation: the fp32 graph runs on the
// reference executor over sample inputs, and every f32 value (graph inputs
// and node outputs) gets statistics from which quantizeGraph picks its int8
// scale: the largest |x| and a histogram of |x| for percentile thresholds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::quant {

// Statistics of |x| for one value over every sample seen.
class TensorStats {
 public:
  static constexpr int kBins = 2048;

  void add(const float* data, int64_t count);

  double maxAbs() const { return max_abs_; }
  uint64_t count() const { return count_; }
  // The smallest threshold below which at least `fraction` (in (0, 1]) of
  // the |x| seen lie, at the histogram's resolution (its range over kBins;
  // the range is the next power of two above maxAbs, so within 2 / kBins of
  // maxAbs). Never above maxAbs.
  double percentile(double fraction) const;

 private:
  // Doubles the histogram's range (merging bin pairs) until it covers v.
  void growTo(double v);

  double max_abs_ = 0;
  uint64_t count_ = 0;
  double range_ = 0;  // a power of two; 0 until a nonzero value is seen
  std::vector<uint64_t> bins_;
};

// Statistics by value name.
class CalibrationTable {
 public:
  void record(const std::string& value, const rt::Tensor& tensor);  // f32 tensors; others are ignored
  const TensorStats* find(const std::string& value) const;
  const std::map<std::string, TensorStats>& all() const { return stats_; }
  size_t samples = 0;  // calibration samples behind the statistics

 private:
  std::map<std::string, TensorStats> stats_;
};

struct CalibrationOptions {
  // Called after each sample with (samples done, total): calibration of a
  // large network over many images takes a while.
  std::function<void(size_t done, size_t total)> progress;
};

// Runs `graph` (fp32, typed) over every sample (one tensor per graph input)
// and records every f32 graph input and node output by value name.
CalibrationTable calibrate(const ir::Graph& graph, const std::vector<std::vector<rt::Tensor>>& samples,
                           const CalibrationOptions& options = {});

}  // namespace vdla::quant
