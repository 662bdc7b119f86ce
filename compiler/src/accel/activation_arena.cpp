// Phases 2 and 3 of the accelerator lowering: which activations stay on the
// device, and the activation arena that holds every packed tensor an
// offloaded layer reads or writes.
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "vdla/compiler/accel/arena_plan.h"
#include "vdla/compiler/accel/lowering.h"

namespace vdla::accel {

namespace {

bool sameGeometry(const rt::accel::PackedGeometry& a, const rt::accel::PackedGeometry& b) {
  return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.batch == b.batch && a.block == b.block;
}

}  // namespace

void planActivationArena(const ir::Graph& graph, const hw::HwConfig& cfg, AccelLowering& l) {
  const size_t n = l.nodes.size();
  if (l.offloads.size() != n || l.decisions.size() != n)
    throw std::logic_error("the activation arena needs a partitioned graph");
  std::unordered_map<const ir::Value*, size_t> offloaded_producer;  // an offloaded layer's output -> its step
  for (size_t s = 0; s < n; ++s)
    if (l.offloads[s]) offloaded_producer[l.nodes[s]->output(0)] = s;

  // ---- Residency. An offloaded layer reads its input (or residual) where
  // the offloaded layer producing it wrote it when the packed layouts agree
  // and the host has nothing to do to it on the way (no host padding or
  // im2col). A layer's output goes to the host only when something there
  // reads it: a CPU step, the graph's outputs, or a layer whose input the
  // host transforms.
  auto producerOf = [&](const ir::Value* v) -> std::optional<size_t> {
    auto it = v ? offloaded_producer.find(v) : offloaded_producer.end();
    return it == offloaded_producer.end() ? std::nullopt : std::optional<size_t>(it->second);
  };
  std::vector<int64_t> last_device_read(n, -1);  // per producing step
  std::vector<char> read_on_host(n, 0);
  for (size_t s = 0; s < n; ++s) {
    const ir::Node* node = l.nodes[s];
    if (l.offloads[s]) {
      Offload& o = *l.offloads[s];
      const std::optional<size_t> px = producerOf(node->input(0));
      if (px && o.hostLeavesInput() && sameGeometry(o.inputGeometry(cfg), l.offloads[*px]->outputGeometry(cfg))) {
        o.x_resident = true;
        last_device_read[*px] = int64_t(s);
      }
      if (o.hasResidual()) {
        const std::optional<size_t> pr = producerOf(node->input(o.residualInput()));
        if (pr && sameGeometry(o.outputGeometry(cfg), l.offloads[*pr]->outputGeometry(cfg))) {
          o.r_resident = true;
          last_device_read[*pr] = int64_t(s);
        }
      }
    }
    for (size_t i = 0; i < node->numInputs(); ++i) {
      const std::optional<size_t> p = producerOf(node->input(i));
      if (!p) continue;
      const bool on_device =
          l.offloads[s] &&
          ((i == 0 && l.offloads[s]->x_resident) ||
           (l.offloads[s]->hasResidual() && i == l.offloads[s]->residualInput() && l.offloads[s]->r_resident));
      if (!on_device) read_on_host[*p] = 1;
    }
  }
  for (const ir::Value* v : graph.outputs())
    if (const std::optional<size_t> p = producerOf(v)) read_on_host[*p] = 1;

  // ---- The arena: every output from its layer to its last reader on the
  // device; every input and residual the host uploads for its layer alone.
  ArenaPlanner arena(kArenaAlign);
  l.buffers.clear();
  auto allocate = [&](size_t s, char role, uint64_t bytes, int64_t first, int64_t last) {
    const uint64_t offset = arena.allocate(bytes, first, last);
    l.buffers.push_back({s, role, offset, bytes, first, last});
    return int64_t(offset);
  };
  for (size_t s = 0; s < n; ++s) {
    if (!l.offloads[s]) continue;
    Offload& o = *l.offloads[s];
    const ir::Node* node = l.nodes[s];
    const int64_t step = int64_t(s);
    const uint64_t out_bytes = uint64_t(o.outputGeometry(cfg).bytes());
    o.y_to_host = read_on_host[s] != 0;
    o.placement.x_offset = o.x_resident ? l.offloads[*producerOf(node->input(0))]->placement.y_offset
                                        : allocate(s, 'x', uint64_t(o.inputGeometry(cfg).bytes()), step, step);
    if (o.hasResidual())
      o.placement.r_offset = o.r_resident ? l.offloads[*producerOf(node->input(o.residualInput()))]->placement.y_offset
                                          : allocate(s, 'r', out_bytes, step, step);
    o.placement.y_offset = allocate(s, 'y', out_bytes, step, std::max<int64_t>(step, last_device_read[s]));
  }
  l.arena_bytes = arena.bytes();
  l.arena_planned = true;
}

}  // namespace vdla::accel
