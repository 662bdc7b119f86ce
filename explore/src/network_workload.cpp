#include "vdla/explore/network_workload.h"

#include <map>
#include <set>

#include "vdla/compiler/accel/fuse_additions.h"

namespace vdla::explore {

NetworkWorkload prepareWorkload(const std::string& name, std::shared_ptr<ir::Graph> graph, CompileOptions options) {
  options.target = "vdla";
  // The accelerator layers are all the explorer needs; code for CPU steps is not.
  options.llvm_cpu_fallback = false;
  // Additions stay apart in the graph: each design point decides its fusions.
  const bool fuse = options.accel.fuse_additions, fuse_expansions = options.accel.fuse_expansions;
  options.accel.fuse_additions = false;
  options.accel.fuse_expansions = false;
  compileGraph(*graph, options);  // quantises the graph in place
  NetworkWorkload w;
  w.name = name;
  w.graph = graph;
  std::map<const ir::Node*, size_t> layer_of;
  std::vector<const ir::Node*> add_nodes;
  std::set<const ir::Node*> on_device;  // every node the accelerator takes
  for (const ir::Node* node : graph->nodes()) {
    if (node->qualifiedOp() == "MaxPool" && options.accel.offload_pooling &&
        accel::whyNotOffloadablePool(*node).empty()) {
      w.pools.push_back(accel::poolLayerFromNode(*node));
      on_device.insert(node);
      continue;
    }
    if (node->qualifiedOp() == "com.microsoft.QLinearAdd" && options.accel.offload_adds &&
        accel::whyNotOffloadableAdd(*node).empty()) {
      w.adds.push_back(accel::addLayerFromNode(*node));
      add_nodes.push_back(node);
      on_device.insert(node);
      continue;
    }
    if (node->qualifiedOp() == "com.microsoft.QLinearGlobalAveragePool" && options.accel.offload_pooling &&
        accel::whyNotOffloadableGlobalPool(*node).empty()) {
      w.global_pools.push_back(accel::globalPoolLayerFromNode(*node));
      on_device.insert(node);
      continue;
    }
    if (node->qualifiedOp() != "vdla.QConv") continue;
    const std::string why = accel::whyNotOffloadable(*node);
    if (!why.empty()) {
      w.cpu_convs.push_back(node->name() + ": " + why);
      continue;
    }
    layer_of[node] = w.layers.size();
    const ir::Value* x = node->input(0);
    w.input_on_device.push_back(x && x->producer() && on_device.count(x->producer()) > 0);
    on_device.insert(node);
    w.layers.push_back(accel::convLayerFromNode(*node));
    w.macs += w.layers.back().macs();
  }
  // Program chains: convolutions one after the other (or with an addition
  // between them), where everything the first writes is read on the device
  // only and everything the second reads comes from the device, as the
  // compiler's arena plan decides (its packing, per design point).
  auto keptOnDevice = [&](const ir::Node* n) {
    if (graph->isGraphOutput(n->output(0))) return false;
    for (const ir::Node* u : graph->users(n->output(0)))
      if (!on_device.count(u)) return false;
    return true;
  };
  auto readsTheDevice = [&](const ir::Node* n) {
    for (size_t slot : {size_t{0}, size_t{5}}) {
      const ir::Value* v = n->numInputs() > slot ? n->input(slot) : nullptr;
      if (v && (!v->producer() || !on_device.count(v->producer()))) return false;
    }
    return true;
  };
  if (options.accel.chain_layers) {
    const std::vector<ir::Node*> order = graph->nodes();
    std::map<const ir::Node*, size_t> add_of;
    for (size_t a = 0; a < add_nodes.size(); ++a) add_of[add_nodes[a]] = a;
    for (size_t k = 1; k < order.size(); ++k) {
      const ir::Node* node = order[k];
      if (!layer_of.count(node) || !readsTheDevice(node)) continue;
      const ir::Node* prev = order[k - 1];
      if (layer_of.count(prev) && keptOnDevice(prev)) {
        w.chained.push_back({layer_of.at(prev), layer_of.at(node), -1});
      } else if (add_of.count(prev) && k >= 2 && layer_of.count(order[k - 2]) && keptOnDevice(prev)) {
        w.chained.push_back({layer_of.at(order[k - 2]), layer_of.at(node), int64_t(add_of.at(prev))});
      }
    }
  }
  for (size_t a = 0; fuse && a < add_nodes.size(); ++a)
    for (const size_t slot : {size_t{0}, size_t{3}}) {
      const ir::Node* conv = accel::fusibleConvolution(*graph, *add_nodes[a], slot);
      if (!conv || !layer_of.count(conv)) continue;
      w.fusible.push_back({layer_of.at(conv), a, slot == 0});
    }
  for (const auto& [node, d] : layer_of) {
    if (!fuse_expansions) break;
    const ir::Value* x = node->input(0);
    const ir::Node* e = x ? x->producer() : nullptr;
    if (!e || !layer_of.count(e) || graph->isGraphOutput(x) || graph->users(x).size() != 1 || node->input(5) ||
        e->input(5))
      continue;
    const accel::ConvLayer &E = w.layers[layer_of.at(e)], &D = w.layers[d];
    if (E.kh != 1 || E.kw != 1 || D.group < 2 || D.group != D.c || D.c != D.o) continue;  // not 1x1 then depthwise
    w.expandable.push_back({layer_of.at(e), d});
  }
  return w;
}

}  // namespace vdla::explore
