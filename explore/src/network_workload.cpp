#include "vdla/explore/network_workload.h"

namespace vdla::explore {

NetworkWorkload prepareWorkload(const std::string& name, std::shared_ptr<ir::Graph> graph, CompileOptions options) {
  options.target = "vdla";
  // The accelerator layers are all the explorer needs; code for CPU steps is not.
  options.llvm_cpu_fallback = false;
  compileGraph(*graph, options);  // quantises the graph in place
  NetworkWorkload w;
  w.name = name;
  w.graph = graph;
  for (const ir::Node* node : graph->nodes()) {
    if (node->qualifiedOp() == "MaxPool" && options.accel.offload_pooling &&
        accel::whyNotOffloadablePool(*node).empty()) {
      w.pools.push_back(accel::poolLayerFromNode(*node));
      continue;
    }
    if (node->qualifiedOp() == "com.microsoft.QLinearAdd" && options.accel.offload_adds &&
        accel::whyNotOffloadableAdd(*node).empty()) {
      w.adds.push_back(accel::addLayerFromNode(*node));
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
    w.layers.push_back(accel::convLayerFromNode(*node));
    w.macs += w.layers.back().macs();
  }
  return w;
}

}  // namespace vdla::explore
