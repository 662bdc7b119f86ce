// The compiler's graph IR: a static-shape dataflow graph in SSA form. Values are
// typed tensors (graph inputs, constants or node outputs); nodes carry an
// operator name, an optional domain ("" for ONNX's default, "com.microsoft",
// "vdla"), attributes and a readable name. Nodes are kept in topological order.
//
// Operator names follow ONNX ("Conv", "Relu", "QLinearConv"); fused operators
// keep the ONNX name and record the fusion in attributes (a Conv with
// attribute activation="Relu"), so that every stage reads the same vocabulary.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "vdla/runtime/attributes.h"
#include "vdla/runtime/tensor.h"

namespace vdla::ir {

using rt::AttributeMap;
using rt::DType;
using rt::Shape;
using rt::Tensor;
using rt::TensorType;

class Node;

class Value {
 public:
  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  // The type is unset until the importer or shape inference fills it.
  bool hasType() const { return has_type_; }
  const TensorType& type() const;  // throws when unset
  void setType(TensorType type) {
    type_ = std::move(type);
    has_type_ = true;
  }

  Node* producer() const { return producer_; }
  bool isConstant() const { return constant_.has_value(); }
  const Tensor& constant() const;  // throws when not a constant
  bool isGraphInput() const { return is_input_; }

 private:
  friend class Graph;
  std::string name_;
  TensorType type_;
  bool has_type_ = false;
  Node* producer_ = nullptr;
  std::optional<Tensor> constant_;
  bool is_input_ = false;
};

class Node {
 public:
  const std::string& op() const { return op_; }
  const std::string& domain() const { return domain_; }
  // "Conv" or "com.microsoft.QLinearAdd": the key of the operator registry.
  std::string qualifiedOp() const { return domain_.empty() ? op_ : domain_ + "." + op_; }
  const std::string& name() const { return name_; }
  void setName(std::string name) { name_ = std::move(name); }

  // A missing optional input is nullptr.
  const std::vector<Value*>& inputs() const { return inputs_; }
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  size_t numInputs() const { return inputs_.size(); }
  void setInput(size_t i, Value* v);
  void addInput(Value* v) { inputs_.push_back(v); }
  void removeTrailingInputs(size_t keep);

  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* output(size_t i = 0) const { return outputs_.at(i); }
  size_t numOutputs() const { return outputs_.size(); }

  AttributeMap& attrs() { return attrs_; }
  const AttributeMap& attrs() const { return attrs_; }

  // "node 'conv1' (Conv)": the prefix of every diagnostic about this node.
  std::string describe() const;

 private:
  friend class Graph;
  std::string op_;
  std::string domain_;
  std::string name_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  AttributeMap attrs_;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::string name;

  Value* addInput(const std::string& name, TensorType type);
  Value* addConstant(const std::string& name, Tensor value);
  // Appends a node (keep topological order: its inputs must exist already) with
  // fresh output values named output_names (or "<node name>_out<i>").
  Node* addNode(const std::string& op, const std::vector<Value*>& inputs, size_t num_outputs = 1,
                AttributeMap attrs = {}, const std::string& name = "", const std::string& domain = "",
                const std::vector<std::string>& output_names = {});
  // Same, inserted just before `position` (which must belong to this graph).
  Node* insertNodeBefore(Node* position, const std::string& op, const std::vector<Value*>& inputs,
                         size_t num_outputs = 1, AttributeMap attrs = {}, const std::string& name = "",
                         const std::string& domain = "");
  void addOutput(Value* v) { outputs_.push_back(v); }
  void setOutput(size_t i, Value* v) { outputs_.at(i) = v; }

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  // Nodes in topological order. A snapshot: safe to keep while nodes are removed
  // or inserted, but removed nodes must not be touched.
  std::vector<Node*> nodes() const;
  size_t numNodes() const { return nodes_.size(); }
  std::vector<Value*> values() const;  // every live value
  std::vector<Value*> constants() const;

  // Nodes reading v (a node appears once per input slot that reads v).
  std::vector<Node*> users(const Value* v) const;
  bool isGraphOutput(const Value* v) const;
  // Rewires every reader of `from` (and graph outputs) to `to`.
  void replaceAllUsesWith(Value* from, Value* to);
  // Removes a node; its outputs must have no users and must not be graph outputs.
  // Then drops every value nothing uses any more, unless sweep_values is false
  // (the ONNX importer removes nodes while constants wait for later readers).
  void removeNode(Node* node, bool sweep_values = true);
  // Drops values that nothing produces, reads or returns (dead constants).
  void removeUnusedValues();
  // Re-establishes topological order after rewrites; throws on a cycle.
  void topologicalSort();
  // A name not yet used by any value or node.
  std::string uniqueName(const std::string& prefix);
  Value* findValue(const std::string& name) const;
  Node* findNode(const std::string& name) const;

  // Totals for reports.
  size_t constantBytes() const;

 private:
  Value* newValue(const std::string& name);
  Node* makeNode(const std::string& op, const std::vector<Value*>& inputs, size_t num_outputs, AttributeMap attrs,
                 const std::string& name, const std::string& domain, const std::vector<std::string>& output_names);

  std::list<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::unordered_set<std::string> used_names_;
  uint64_t name_counter_ = 0;
};

}  // namespace vdla::ir
