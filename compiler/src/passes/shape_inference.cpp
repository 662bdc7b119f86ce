#include "vdla/compiler/passes/shape_inference.h"

#include <stdexcept>

namespace vdla::passes {

void inferShapes(ir::Graph& graph, const ir::OpRegistry& ops) {
  for (ir::Node* node : graph.nodes()) {
    const ir::OpInfo* info = ops.find(node->qualifiedOp());
    if (!info) throw std::runtime_error(node->describe() + ": unsupported operator");
    try {
      info->infer_types(*node);
    } catch (const std::exception& e) {
      throw std::runtime_error(node->describe() + ": " + e.what());
    }
  }
}

}  // namespace vdla::passes
