// Checks of what each phase of the accelerator lowering added, run after its
// stage: a later phase trusts these facts (code generation addresses the
// arena as planned), so a bug shows where it was made, not as wrong data on
// the device.
#include <stdexcept>
#include <unordered_map>

#include "vdla/compiler/accel/lowering.h"

namespace vdla::accel {

namespace {

[[noreturn]] void fail(const ir::Node* node, const std::string& what) {
  throw std::runtime_error((node ? node->describe() + ": " : std::string()) + what);
}

std::string range(const ArenaBuffer& b) {
  return "[" + std::to_string(b.offset) + ", " + std::to_string(b.offset + b.bytes) + ") live in steps " +
         std::to_string(b.first) + ".." + std::to_string(b.last);
}

}  // namespace

void verifyPartition(const ir::Graph& graph, const AccelLowering& l) {
  const std::vector<ir::Node*> nodes = graph.nodes();
  if (l.nodes.size() != nodes.size() || l.decisions.size() != nodes.size() || l.offloads.size() != nodes.size())
    fail(nullptr, "the partition covers " + std::to_string(l.decisions.size()) + " nodes, the graph has " +
                      std::to_string(nodes.size()));
  for (size_t s = 0; s < nodes.size(); ++s) {
    const ir::Node* node = nodes[s];
    const LayerDecision& d = l.decisions[s];
    if (l.nodes[s] != node || d.name != node->name())
      fail(node, "the partition's node " + std::to_string(s) + " is '" + d.name + "'");
    if (d.offloaded != l.offloads[s].has_value()) fail(node, "decided offloaded but has no form, or the reverse");
    if (!d.offloaded) {
      if (d.reason.empty()) fail(node, "stays on the CPU without a reason");
      continue;
    }
    const Offload& o = *l.offloads[s];
    const char* kind = o.pool          ? "max pooling"
                       : o.add         ? "quantised addition"
                       : o.global_pool ? "global pooling"
                                       : "convolution";
    const char* op = o.pool          ? "MaxPool"
                     : o.add         ? "com.microsoft.QLinearAdd"
                     : o.global_pool ? "com.microsoft.QLinearGlobalAveragePool"
                                     : "vdla.QConv";
    if (node->qualifiedOp() != op)
      fail(node, std::string("offloaded as a ") + kind + ", but it is a " + node->qualifiedOp());
    const TilePlan& p = d.plan;
    if (p.rows < 1 || p.cols < 1 || p.oc_blocks < 1 || p.ic_blocks < 1 || p.threads < 1)
      fail(node, "offloaded with an empty tiling");
    if (!d.estimate.fits) fail(node, "offloaded with a tiling the cost model says does not fit: " + d.estimate.why_not);
    // DWGEMM runs depthwise convolutions only (the config's side, taps and
    // stride, is the estimate's, which fits).
    if (p.dwgemm && (!o.isConv() || o.form.layer.group != o.form.layer.c || o.form.layer.c != o.form.layer.o))
      fail(node, std::string("planned on DWGEMM, but it is not a depthwise convolution (a ") + kind + ")");
  }
}

void verifyArena(const AccelLowering& l) {
  if (!l.arena_planned) fail(nullptr, "the arena is not planned");
  for (const ArenaBuffer& b : l.buffers) {
    const ir::Node* node = b.step < l.nodes.size() ? l.nodes[b.step] : nullptr;
    if (!node || !l.offloads[b.step]) fail(nullptr, "an arena place belongs to no offloaded layer");
    if (b.offset % kArenaAlign != 0) fail(node, std::string("its ") + b.role + " place is not aligned: " + range(b));
    if (b.offset + b.bytes > l.arena_bytes)
      fail(node, std::string("its ") + b.role + " place " + range(b) + " is past the arena's " +
                     std::to_string(l.arena_bytes) + " bytes");
    if (b.first > int64_t(b.step) || b.last < int64_t(b.step))
      fail(node, std::string("its ") + b.role + " place is not live at its step");
  }
  for (size_t i = 0; i < l.buffers.size(); ++i)
    for (size_t j = i + 1; j < l.buffers.size(); ++j) {
      const ArenaBuffer& a = l.buffers[i];
      const ArenaBuffer& b = l.buffers[j];
      const bool live_together = a.first <= b.last && b.first <= a.last;
      const bool overlap = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      if (live_together && overlap)
        fail(l.nodes[b.step], std::string("its ") + b.role + " place " + range(b) + " overlaps the " + a.role +
                                  " place " + range(a) + " of " + l.decisions[a.step].name);
    }

  // Each offloaded layer's tensors are where the arena put them: its own
  // places, or, when resident, its producer's output, still live.
  std::unordered_map<const ir::Value*, size_t> producer;
  for (size_t s = 0; s < l.nodes.size(); ++s)
    if (l.offloads[s]) producer[l.nodes[s]->output(0)] = s;
  auto placeOf = [&](size_t step, char role) -> const ArenaBuffer* {
    for (const ArenaBuffer& b : l.buffers)
      if (b.step == step && b.role == role) return &b;
    return nullptr;
  };
  for (size_t s = 0; s < l.nodes.size(); ++s) {
    if (!l.offloads[s]) continue;
    const Offload& o = *l.offloads[s];
    const ir::Node* node = l.nodes[s];
    auto check = [&](char role, int64_t offset, bool resident, const ir::Value* value) {
      const ArenaBuffer* b = nullptr;
      if (resident) {
        auto p = value ? producer.find(value) : producer.end();
        if (p == producer.end())
          fail(node, std::string("its ") + role + " is resident but no offloaded layer makes it");
        b = placeOf(p->second, 'y');
        if (b && b->last < int64_t(s))
          fail(node, std::string("reads its ") + role + " after its place " + range(*b) + " ends");
      } else {
        b = placeOf(s, role);
      }
      if (!b || int64_t(b->offset) != offset) fail(node, std::string("its ") + role + " is not where the arena put it");
    };
    check('x', o.placement.x_offset, o.x_resident, node->input(0));
    if (o.hasResidual()) check('r', o.placement.r_offset, o.r_resident, node->input(o.residualInput()));
    check('y', o.placement.y_offset, false, nullptr);
  }
}

}  // namespace vdla::accel
