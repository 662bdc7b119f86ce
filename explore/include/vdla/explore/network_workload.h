// A network as the explorer sees it: its quantised convolutions, each
// described independently of any hardware configuration, so that one
// quantisation serves every design point.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "vdla/compiler/accel/add_layer.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/global_pool_layer.h"
#include "vdla/compiler/accel/pool_layer.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/ir/graph.h"

namespace vdla::explore {

struct NetworkWorkload {
  std::string name;
  // The optimised, quantised graph (for compiling a design point in full,
  // as the device confirmation does); shared, never changed after prepareWorkload.
  std::shared_ptr<ir::Graph> graph;
  std::vector<accel::ConvLayer> layers;  // every vdla.QConv the accelerator can describe
  // Per layer: its input is written by a node the accelerator takes, so the
  // compiler keeps the layer in its direct form (accel::chooseLayerForm).
  std::vector<bool> input_on_device;
  std::vector<std::string> cpu_convs;                // vdla.QConv nodes it cannot (with the reason)
  std::vector<accel::PoolLayer> pools;               // the max poolings it runs (no MACs; their cycles count)
  std::vector<accel::AddLayer> adds;                 // the quantised additions it runs (likewise)
  std::vector<accel::GlobalPoolLayer> global_pools;  // the global average poolings it runs (likewise)
  // Additions that can fuse into a convolution feeding them
  // (accel/fuse_additions.h): whether they do, and into which, is decided
  // per design point as the compiler's stage decides it (operand A's
  // convolution first, then B's), so the graph is prepared with fusion off.
  struct Fusible {
    size_t layer = 0, add = 0;  // indices into `layers` and `adds`
    bool conv_is_a = true;
  };
  std::vector<Fusible> fusible;  // per addition, its candidates in that order
  // Convolutions one after the other in program order (indices into
  // `layers`): on a config where the tensors between them stay on the device
  // the compiler runs them in one program chain (accel/program_chain.h),
  // which overlaps the second's first loads with the first's last store.
  // A pair with an addition between them (`across_add`, an index into
  // `adds`) is one where that addition fuses into a convolution.
  struct Chained {
    size_t first = 0, second = 0;
    int64_t across_add = -1;
  };
  std::vector<Chained> chained;
  // 1x1 expansions whose output only a depthwise layer reads
  // (accel/fuse_expansions.h): whether the pair runs as one program is
  // decided per design point (its STORE INP, its cost model), so the graph is
  // prepared with that fusion off too.
  struct Expandable {
    size_t expansion = 0, depthwise = 0;  // indices into `layers`
  };
  std::vector<Expandable> expandable;
  int64_t macs = 0;  // of `layers`
};

// Optimises and quantises `graph` for target vdla with `options` (its
// calibration samples, quantisation options) and collects the layers.
NetworkWorkload prepareWorkload(const std::string& name, std::shared_ptr<ir::Graph> graph, CompileOptions options);

}  // namespace vdla::explore
