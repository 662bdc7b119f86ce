// JSON form of a design point's result: what the sweep cache stores, what
// `vdla explore` writes, and what the Python package hands to pandas.
#pragma once

#include <nlohmann/json.hpp>

#include "vdla/explore/design_point.h"

namespace vdla::explore {

// The result with its config's swept fields flattened in (name, hash, GEMM
// shape, buffers, AXI, clock, latency hiding).
nlohmann::json pointResultToJson(const PointResult& result);
// Reads the measurements back onto `point` (the cache keys guarantee they belong to it).
PointResult pointResultFromJson(const nlohmann::json& j, const DesignPoint& point);

}  // namespace vdla::explore
