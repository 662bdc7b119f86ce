// Confirms a design point on a device: compiles every network for the
// point's config (the full lowering, programs and all), runs it on a seeded
// synthetic input on `device` ("cycle": the cycle-accurate simulator, whose
// model for the config is built on first use) and compares the accelerator
// cycles it counts with the cost model's estimate the sweep used.
#pragma once

#include <string>
#include <vector>

#include "vdla/explore/design_point.h"

namespace vdla::explore {

struct ConfirmedNetwork {
  std::string network;
  double measured_cycles = 0;   // offloaded steps, as the device counted them
  double estimated_cycles = 0;  // the cost model's, for the same layers
  double measured_ms = 0;       // at the config's clock
  double error = 0;             // estimated / measured - 1
};

struct Confirmation {
  std::vector<ConfirmedNetwork> networks;
  double seconds = 0;  // wall time (model build, compilation and runs)
};

// Throws vdla::Error when the device cannot run the config or a run fails.
Confirmation confirmOnDevice(const DesignPoint& point, const std::vector<NetworkWorkload>& networks,
                             const std::string& device = "cycle");

}  // namespace vdla::explore
