#include "vdla/compiler/accel/fuse_expansions.h"

#include <memory>
#include <optional>

#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/expanded_depthwise.h"
#include "vdla/compiler/accel/layer_form.h"

namespace vdla::accel {

namespace {

// A node the partition would offload as it is (its float form needs FREQ).
bool offloadable(const ir::Node& node, const hw::HwConfig& cfg) {
  return node.qualifiedOp() == "vdla.QConv" && whyNotOffloadable(node).empty() &&
         (node.attrs().getInt("float_requant", 0) == 0 || cfg.float_requant);
}

// The expansion feeding `d` that could fuse into it, or nullptr.
ir::Node* fusibleExpansion(const ir::Graph& graph, const ir::Node& d, const hw::HwConfig& cfg) {
  if (!offloadable(d, cfg) || d.input(5) || d.input(7)) return nullptr;
  ir::Value* mid = d.input(0);
  ir::Node* e = mid ? mid->producer() : nullptr;
  if (!e || !offloadable(*e, cfg) || e->input(5) || e->input(7) || graph.isGraphOutput(mid) ||
      graph.users(mid).size() != 1)
    return nullptr;
  return e;
}

std::optional<double> cyclesOf(const ConvLayer& L, const hw::HwConfig& cfg, const AccelOptions& o) {
  try {
    const LayerForm f = chooseLayerForm(L, cfg, o.latency_hiding, o.allow_im2col, o.allow_unfold);
    generateConvProgram(f.layer, f.plan, cfg, 0);  // what only code generation finds (micro-ops)
    return f.estimate.cycles + f.host_cycles;
  } catch (const DoesNotFit&) {
    return std::nullopt;
  }
}

void fuse(ir::Graph& graph, ir::Node* e, ir::Node* d) {
  d->setInput(0, e->input(0));
  d->removeTrailingInputs(5);
  d->addInput(nullptr);  // no residual R
  d->addInput(nullptr);
  for (size_t i : {1, 2, 3, 4}) d->addInput(e->input(i));
  rt::AttributeMap& a = d->attrs();
  for (const auto& [name, value] : e->attrs().all()) a.set("expand_" + name, value);
  a.set("expand_name", e->name());
  graph.removeNode(e);
}

}  // namespace

std::vector<ExpansionFusion> fuseExpansionsIntoDepthwise(ir::Graph& graph, const hw::HwConfig& cfg,
                                                         const AccelOptions& requested) {
  std::vector<ExpansionFusion> fused;
  if (!requested.fuse_expansions || !cfg.inp_writeback) return fused;
  AccelOptions options = requested;
  options.latency_hiding = true;
  for (ir::Node* d : graph.nodes()) {
    ir::Node* e = fusibleExpansion(graph, *d, cfg);
    if (!e) continue;
    const ConvLayer E = convLayerFromNode(*e), D = convLayerFromNode(*d);
    if (!whyNoExpandedDepthwise(E, D, cfg).empty()) continue;
    ConvLayer F = D;
    F.expansion = std::make_shared<const ConvLayer>(E);
    const std::optional<double> alone_e = cyclesOf(E, cfg, options), alone_d = cyclesOf(D, cfg, options),
                                together = cyclesOf(F, cfg, options);
    if (!alone_e || !alone_d || !together || !(*together < *alone_e + *alone_d)) continue;
    fused.push_back({e->name(), d->name(), *alone_e + *alone_d, *together});
    fuse(graph, e, d);
  }
  if (!fused.empty()) graph.topologicalSort();
  return fused;
}

}  // namespace vdla::accel
