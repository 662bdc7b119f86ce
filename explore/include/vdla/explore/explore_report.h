// What `vdla explore` writes: every point as CSV (one row, one column group
// per network), and an SVG chart of latency against DSP use with the fitting
// points, the Pareto front and named reference points marked.
#pragma once

#include <string>
#include <vector>

#include "vdla/explore/design_point.h"
#include "vdla/explore/fpga_part.h"

namespace vdla::explore {

std::string resultsCsv(const std::vector<PointResult>& results);

// A point to label on the chart (a shipped config evaluated beside the sweep).
struct ChartMarker {
  std::string label;
  PointResult result;
};

// Latency on the y axis: the objective's.
std::string paretoSvg(const std::vector<PointResult>& results, const std::vector<ChartMarker>& markers,
                      const FpgaPart& part, const std::string& title, Objective objective = Objective::Accelerator);

}  // namespace vdla::explore
