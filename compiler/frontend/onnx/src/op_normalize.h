// The operators the importer accepts and, for each, the rewrite from any
// supported opset into the IR's one form of it.
//
// The IR form follows the newest ONNX opset: values that later opsets moved
// from attributes to inputs are constant inputs (Clip min/max, Pad pads and
// constant_value, Squeeze/Unsqueeze/ReduceMean axes); auto_pad is resolved into
// explicit pads; Softmax before opset 13 carries legacy_2d=1; inference-only
// operators drop their training inputs, outputs and attributes.
#pragma once

#include <string>
#include <vector>

#include "onnx_node.h"

namespace vdla::frontend::detail {

struct OpSpec {
  std::string domain;  // "" or "com.microsoft"
  std::string op_type;
  int min_inputs = 1;
  int max_inputs = 1;                   // over every supported opset
  int max_outputs = 1;                  // -1: any number (Split)
  std::vector<std::string> attributes;  // accepted at any supported opset
  // Rewrites the node into its IR form (may add constants to the graph); throws
  // std::runtime_error with the reason. Null when the ONNX form is the IR form.
  void (*normalize)(OnnxNode& node, ir::Graph& graph) = nullptr;
};

// Null for operators the importer does not accept.
const OpSpec* findOpSpec(const std::string& domain, const std::string& op_type);
// Every accepted operator, qualified ("Conv", "com.microsoft.QLinearAdd"), sorted.
std::vector<std::string> supportedOpNames();

}  // namespace vdla::frontend::detail
