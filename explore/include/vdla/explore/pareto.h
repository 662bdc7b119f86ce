// The Pareto front of a sweep: the fitting, complete points that no other
// such point beats on both latency (the accelerator's, or end to end) and DSP use.
#pragma once

#include <vector>

#include "vdla/explore/design_point.h"

namespace vdla::explore {

// Sets on_front on `results` and returns the front's indices, by DSP; the
// latency compared is the objective's.
std::vector<size_t> markParetoFront(std::vector<PointResult>& results, Objective objective = Objective::Accelerator);

}  // namespace vdla::explore
