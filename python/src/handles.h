#pragma once
// The objects vdla._core hands to Python: a model (where it comes from; a
// fresh graph is loaded for every compilation, because compiling optimises
// and quantises a graph in place) and a compiled artifact (with the kernels
// of code the JIT compiled in this process, when it has some).
#include <memory>
#include <string>

#include "vdla/api/model_source.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/kernel_registry.h"

namespace vdla::python {

struct ModelHandle {
  std::string spec;
  api::ModelKind kind = api::ModelKind::Zoo;
  api::ModelOptions options;
  std::unique_ptr<ir::Graph> graph;  // for inspection; loaded once

  std::unique_ptr<ir::Graph> freshGraph() const { return api::loadModelGraph(spec, kind, options); }
  const ir::Graph& inspected() {
    if (!graph) graph = freshGraph();
    return *graph;
  }
};

struct ArtifactHandle {
  rt::Artifact artifact;
  std::shared_ptr<rt::KernelRegistry> kernels;  // JIT code; null when the artifact carries its code
  std::string report_json = "{}";               // the compile report (api/compile_report.h)
};

}  // namespace vdla::python
