// What the compiler knows about each operator: arity and type inference. Every
// operator the importer may produce is registered here; the verifier rejects
// any other. Reference kernels (runtime/) implement the same operators.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::ir {

struct OpInfo {
  std::string name;  // qualified: "Conv", "com.microsoft.QLinearAdd"
  int min_inputs = 0;
  int max_inputs = 0;  // -1: variadic
  int min_outputs = 1;
  int max_outputs = 1;  // -1: variadic (Split)
  // Sets the type of every output from the input types and attributes; throws
  // std::exception with the reason (the caller adds the node) when the inputs
  // or attributes are invalid. May read constant inputs (Reshape's shape).
  std::function<void(Node&)> infer_types;
};

class OpRegistry {
 public:
  // The registry with every built-in operator.
  static const OpRegistry& builtin();

  void add(OpInfo info);  // throws when the name is taken
  const OpInfo* find(const std::string& qualified_op) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, OpInfo> ops_;
};

}  // namespace vdla::ir
