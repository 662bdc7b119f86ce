// The Pareto front of a sweep: the fitting, complete points that no other
// such point beats on both latency and DSP use.
#pragma once

#include <vector>

#include "vdla/explore/design_point.h"

namespace vdla::explore {

// Sets on_front on `results` and returns the front's indices, by DSP.
std::vector<size_t> markParetoFront(std::vector<PointResult>& results);

}  // namespace vdla::explore
