#include "vdla/explore/network_workload.h"

#include <map>

#include "vdla/compiler/accel/fuse_additions.h"

namespace vdla::explore {

NetworkWorkload prepareWorkload(const std::string& name, std::shared_ptr<ir::Graph> graph, CompileOptions options) {
  options.target = "vdla";
  // The accelerator layers are all the explorer needs; code for CPU steps is not.
  options.llvm_cpu_fallback = false;
  // Additions stay apart in the graph: each design point decides its fusions.
  const bool fuse = options.accel.fuse_additions;
  options.accel.fuse_additions = false;
  compileGraph(*graph, options);  // quantises the graph in place
  NetworkWorkload w;
  w.name = name;
  w.graph = graph;
  std::map<const ir::Node*, size_t> layer_of;
  std::vector<const ir::Node*> add_nodes;
  // The two nodes before in program order.
  const ir::Node *prev = nullptr, *prev2 = nullptr;
  for (const ir::Node* node : graph->nodes()) {
    // (Every path through the body below ends here or with a continue.)
    struct Advance {
      const ir::Node *&prev, *&prev2, *node;
      ~Advance() {
        prev2 = prev;
        prev = node;
      }
    } advance{prev, prev2, node};
    if (node->qualifiedOp() == "MaxPool" && options.accel.offload_pooling &&
        accel::whyNotOffloadablePool(*node).empty()) {
      w.pools.push_back(accel::poolLayerFromNode(*node));
      continue;
    }
    if (node->qualifiedOp() == "com.microsoft.QLinearAdd" && options.accel.offload_adds &&
        accel::whyNotOffloadableAdd(*node).empty()) {
      w.adds.push_back(accel::addLayerFromNode(*node));
      add_nodes.push_back(node);
      continue;
    }
    if (node->qualifiedOp() == "com.microsoft.QLinearGlobalAveragePool" && options.accel.offload_pooling &&
        accel::whyNotOffloadableGlobalPool(*node).empty()) {
      w.global_pools.push_back(accel::globalPoolLayerFromNode(*node));
      continue;
    }
    if (node->qualifiedOp() != "vdla.QConv") continue;
    const std::string why = accel::whyNotOffloadable(*node);
    if (!why.empty()) {
      w.cpu_convs.push_back(node->name() + ": " + why);
      continue;
    }
    if (prev && layer_of.count(prev)) w.chained.push_back({layer_of.at(prev), w.layers.size(), -1});
    if (prev && prev2 && layer_of.count(prev2) && !add_nodes.empty() && add_nodes.back() == prev)
      w.chained.push_back({layer_of.at(prev2), w.layers.size(), int64_t(add_nodes.size() - 1)});
    layer_of[node] = w.layers.size();
    w.layers.push_back(accel::convLayerFromNode(*node));
    w.macs += w.layers.back().macs();
  }
  for (size_t a = 0; fuse && a < add_nodes.size(); ++a)
    for (const size_t slot : {size_t{0}, size_t{3}}) {
      const ir::Node* conv = accel::fusibleConvolution(*graph, *add_nodes[a], slot);
      if (!conv || !layer_of.count(conv)) continue;
      w.fusible.push_back({layer_of.at(conv), a, slot == 0});
    }
  return w;
}

}  // namespace vdla::explore
