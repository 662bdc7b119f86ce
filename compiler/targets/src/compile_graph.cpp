#include "vdla/compiler/compile.h"

namespace vdla {

rt::Artifact compileGraph(ir::Graph& graph, const CompileOptions& options, CompileReport* report) {
  return compileForTarget(graph, options, requireTarget(options.target), report);
}

}  // namespace vdla
