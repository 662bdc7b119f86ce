#include "vdla/compiler/ir/graph.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace vdla::ir {

const TensorType& Value::type() const {
  if (!has_type_) throw std::logic_error("value '" + name_ + "' has no type yet (run shape inference)");
  return type_;
}

const Tensor& Value::constant() const {
  if (!constant_) throw std::logic_error("value '" + name_ + "' is not a constant");
  return *constant_;
}

void Node::setInput(size_t i, Value* v) {
  if (i >= inputs_.size()) inputs_.resize(i + 1, nullptr);
  inputs_[i] = v;
}

void Node::removeTrailingInputs(size_t keep) {
  if (inputs_.size() > keep) inputs_.resize(keep);
}

std::string Node::describe() const { return "node '" + name_ + "' (" + qualifiedOp() + ")"; }

Value* Graph::newValue(const std::string& name) {
  auto v = std::make_unique<Value>();
  v->name_ = name.empty() ? uniqueName("v") : name;
  used_names_.insert(v->name_);
  values_.push_back(std::move(v));
  return values_.back().get();
}

Value* Graph::addInput(const std::string& name, TensorType type) {
  Value* v = newValue(name);
  v->setType(std::move(type));
  v->is_input_ = true;
  inputs_.push_back(v);
  return v;
}

Value* Graph::addConstant(const std::string& name, Tensor value) {
  Value* v = newValue(name);
  v->setType(value.type());
  v->constant_ = std::move(value);
  return v;
}

Node* Graph::makeNode(const std::string& op, const std::vector<Value*>& inputs, size_t num_outputs, AttributeMap attrs,
                      const std::string& name, const std::string& domain,
                      const std::vector<std::string>& output_names) {
  auto node = std::make_unique<Node>();
  node->op_ = op;
  node->domain_ = domain;
  node->name_ = name.empty() ? uniqueName(op) : name;
  used_names_.insert(node->name_);
  node->inputs_ = inputs;
  node->attrs_ = std::move(attrs);
  for (size_t i = 0; i < num_outputs; ++i) {
    std::string out_name = i < output_names.size() ? output_names[i] : "";
    if (out_name.empty()) out_name = uniqueName(node->name_ + "_out" + (num_outputs > 1 ? std::to_string(i) : ""));
    Value* v = newValue(out_name);
    v->producer_ = node.get();
    node->outputs_.push_back(v);
  }
  return node.release();
}

Node* Graph::addNode(const std::string& op, const std::vector<Value*>& inputs, size_t num_outputs, AttributeMap attrs,
                     const std::string& name, const std::string& domain, const std::vector<std::string>& output_names) {
  Node* n = makeNode(op, inputs, num_outputs, std::move(attrs), name, domain, output_names);
  nodes_.emplace_back(n);
  return n;
}

Node* Graph::insertNodeBefore(Node* position, const std::string& op, const std::vector<Value*>& inputs,
                              size_t num_outputs, AttributeMap attrs, const std::string& name,
                              const std::string& domain) {
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const auto& n) { return n.get() == position; });
  if (it == nodes_.end()) throw std::logic_error("insertNodeBefore: position is not in the graph");
  Node* n = makeNode(op, inputs, num_outputs, std::move(attrs), name, domain, {});
  nodes_.emplace(it, n);
  return n;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(nodes_.size());
  for (const auto& n : nodes_) out.push_back(n.get());
  return out;
}

std::vector<Value*> Graph::values() const {
  std::vector<Value*> out;
  for (const auto& v : values_) out.push_back(v.get());
  return out;
}

std::vector<Value*> Graph::constants() const {
  std::vector<Value*> out;
  for (const auto& v : values_)
    if (v->isConstant()) out.push_back(v.get());
  return out;
}

std::vector<Node*> Graph::users(const Value* v) const {
  std::vector<Node*> out;
  for (const auto& n : nodes_)
    for (const Value* in : n->inputs_)
      if (in == v) out.push_back(n.get());
  return out;
}

bool Graph::isGraphOutput(const Value* v) const {
  return std::find(outputs_.begin(), outputs_.end(), v) != outputs_.end();
}

void Graph::replaceAllUsesWith(Value* from, Value* to) {
  for (auto& n : nodes_)
    for (Value*& in : n->inputs_)
      if (in == from) in = to;
  for (Value*& out : outputs_)
    if (out == from) out = to;
}

void Graph::removeNode(Node* node, bool sweep_values) {
  for (Value* out : node->outputs_) {
    if (!users(out).empty() || isGraphOutput(out))
      throw std::logic_error("cannot remove " + node->describe() + ": output '" + out->name() + "' is still used");
  }
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](const auto& n) { return n.get() == node; });
  if (it == nodes_.end()) throw std::logic_error("removeNode: " + node->describe() + " is not in the graph");
  for (Value* out : node->outputs_) out->producer_ = nullptr;
  nodes_.erase(it);
  if (sweep_values) removeUnusedValues();
}

void Graph::removeUnusedValues() {
  std::unordered_set<const Value*> live;
  for (const Value* v : inputs_) live.insert(v);
  for (const Value* v : outputs_) live.insert(v);
  for (const auto& n : nodes_) {
    for (const Value* v : n->inputs_) live.insert(v);
    for (const Value* v : n->outputs_) live.insert(v);
  }
  values_.erase(std::remove_if(values_.begin(), values_.end(),
                               [&](const auto& v) {
                                 bool dead = !live.count(v.get());
                                 if (dead) used_names_.erase(v->name_);
                                 return dead;
                               }),
                values_.end());
}

void Graph::topologicalSort() {
  std::map<const Node*, size_t> pending;  // unresolved producer inputs per node
  std::map<const Value*, std::vector<Node*>> readers;
  for (const auto& n : nodes_) {
    size_t count = 0;
    for (const Value* in : n->inputs_)
      if (in && in->producer_) {
        ++count;
        readers[in].push_back(n.get());
      }
    pending[n.get()] = count;
  }
  std::vector<Node*> ready;
  for (const auto& n : nodes_)
    if (pending[n.get()] == 0) ready.push_back(n.get());
  std::vector<Node*> order;
  // Stable: take ready nodes in their current order so that sorted graphs keep it.
  std::map<const Node*, size_t> position;
  size_t index = 0;
  for (const auto& n : nodes_) position[n.get()] = index++;
  auto earliest = [&](Node* a, Node* b) { return position[a] > position[b]; };
  std::make_heap(ready.begin(), ready.end(), earliest);
  while (!ready.empty()) {
    std::pop_heap(ready.begin(), ready.end(), earliest);
    Node* n = ready.back();
    ready.pop_back();
    order.push_back(n);
    for (const Value* out : n->outputs_)
      for (Node* r : readers[out])
        if (--pending[r] == 0) {
          ready.push_back(r);
          std::push_heap(ready.begin(), ready.end(), earliest);
        }
  }
  if (order.size() != nodes_.size()) throw std::runtime_error("graph '" + name + "' has a cycle");
  std::map<const Node*, std::unique_ptr<Node>> owned;
  for (auto& n : nodes_) owned[n.get()] = std::move(n);
  nodes_.clear();
  for (Node* n : order) nodes_.push_back(std::move(owned[n]));
}

std::string Graph::uniqueName(const std::string& prefix) {
  if (!used_names_.count(prefix)) return prefix;
  while (true) {
    std::string candidate = prefix + "_" + std::to_string(++name_counter_);
    if (!used_names_.count(candidate)) return candidate;
  }
}

Value* Graph::findValue(const std::string& name) const {
  for (const auto& v : values_)
    if (v->name_ == name) return v.get();
  return nullptr;
}

Node* Graph::findNode(const std::string& name) const {
  for (const auto& n : nodes_)
    if (n->name_ == name) return n.get();
  return nullptr;
}

size_t Graph::constantBytes() const {
  size_t total = 0;
  for (const auto& v : values_)
    if (v->constant_) total += v->constant_->byteSize();
  return total;
}

}  // namespace vdla::ir
