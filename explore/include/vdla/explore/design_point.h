// One design point: a hardware configuration (with latency hiding on or
// off) judged for a set of networks on one FPGA part. evaluateDesignPoint is
// the unit of work of a sweep; it uses only the cost model and the resource
// model, and is a plain function so that any executor (local threads, a Ray
// task) can run it.
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/accel/layer_form.h"
#include "vdla/explore/fpga_part.h"
#include "vdla/explore/network_workload.h"
#include "vdla/explore/resource_model.h"
#include "vdla/hw/config.h"

namespace vdla::explore {

struct DesignPoint {
  hw::HwConfig config;
  bool latency_hiding = true;
};

struct NetworkResult {
  std::string network;
  double cycles = 0;           // accelerator cycles of the offloaded layers (cost model)
  double latency_ms = 0;       // at the config's clock
  double ideal_cycles = 0;     // MACs / MACs per cycle
  double mac_utilisation = 0;  // ideal / cycles
  // The board host's work per inference that the config's layouts leave
  // (hostHandoffMs); 0 on a board without a host on record.
  double host_ms = 0;
  int layers_offloaded = 0, layers_total = 0;
  std::string why_incomplete;  // the first layer that does not fit, if any
};

struct PointResult {
  DesignPoint point;
  ResourceEstimate resources;
  std::string why_not_fits;  // "" when it fits the part
  std::vector<NetworkResult> networks;
  bool complete = false;  // every layer of every network fits the buffers
  double latency_ms = 0;  // sum over the networks
  double host_ms = 0;     // sum over the networks
  bool on_front = false;  // set by the Pareto analysis
  bool fits() const { return why_not_fits.empty(); }
};

// The host's share of an inference on the config's board, in ms: the input
// transforms of the layers whose chosen form has one (im2col, space-to-depth,
// host padding), and, for a layer whose output is not packed in the next
// convolution's input entries (block_out channels per entry where block_in
// differs, with no output interleave to bridge them: conv_layer.h), the
// download, unpacking, packing and upload of that output between the two.
// At hw/board_host.h's rates; every layer's output is taken to feed a
// convolution. The accelerator's latency does not include it.
double hostHandoffMs(const accel::LayerForm& form, const hw::HwConfig& cfg);

PointResult evaluateDesignPoint(const DesignPoint& point, const std::vector<NetworkWorkload>& networks,
                                const ResourceModel& model, const FpgaPart& part);

// What a sweep ranks points by: the accelerator's latency (what the cost
// model estimates, the default), or end to end: that plus the board CPU's
// share (host_ms).
enum class Objective { Accelerator, EndToEnd };
inline double objectiveMs(const PointResult& r, Objective o) {
  return o == Objective::EndToEnd ? r.latency_ms + r.host_ms : r.latency_ms;
}
// "accelerator" or "end-to-end"; throws std::invalid_argument naming the value otherwise.
Objective parseObjective(const std::string& name);
const char* objectiveName(Objective o);

// A stable identity of a point's inputs (config hash, latency hiding, the
// networks' names and sizes, the resource model's coefficients) and of the
// code that evaluates it (a fingerprint of the cost model's sources), for caches.
std::string designPointKey(const DesignPoint& point, const std::vector<NetworkWorkload>& networks,
                           const ResourceModel& model);

}  // namespace vdla::explore
