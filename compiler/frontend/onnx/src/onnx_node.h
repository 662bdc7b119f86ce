// One ONNX node on its way into the IR: inputs already resolved to IR values,
// attributes converted. The operator normalisers rewrite it in place into the
// IR's single form of the operator; the importer then adds it to the graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/runtime/attributes.h"

namespace vdla::frontend::detail {

struct OnnxNode {
  std::string op_type;
  std::string domain;              // "" for the default domain (also spelled "ai.onnx")
  int64_t opset = 0;               // the model's opset version for `domain`
  std::vector<ir::Value*> inputs;  // nullptr for an absent optional input
  rt::AttributeMap attrs;
  std::vector<std::string> outputs;  // "" for an absent optional output

  ir::Value* input(size_t i) const { return i < inputs.size() ? inputs[i] : nullptr; }
  // Number of outputs the model names (trailing absent ones do not count).
  size_t numPresentOutputs() const;
};

}  // namespace vdla::frontend::detail
