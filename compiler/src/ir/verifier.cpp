#include "vdla/compiler/ir/verifier.h"

#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace vdla::ir {

namespace {

void checkType(const Value* v, std::vector<std::string>& problems) {
  if (!v->hasType()) {
    problems.push_back("value '" + v->name() + "' has no type");
    return;
  }
  for (int64_t d : v->type().shape)
    if (d < 0) problems.push_back("value '" + v->name() + "' has a dynamic shape " + v->type().toString());
}

}  // namespace

std::vector<std::string> verifyGraph(const Graph& graph, const VerifyOptions& options, const OpRegistry& ops) {
  std::vector<std::string> problems;
  std::unordered_set<const Value*> defined;
  std::unordered_map<const Value*, const Node*> producer;
  for (const Value* v : graph.inputs()) defined.insert(v);
  for (const Value* v : graph.constants()) defined.insert(v);
  std::unordered_set<std::string> node_names;

  for (const Node* node : graph.nodes()) {
    if (!node_names.insert(node->name()).second) problems.push_back("two nodes are named '" + node->name() + "'");
    const OpInfo* info = ops.find(node->qualifiedOp());
    if (!info) {
      problems.push_back(node->describe() + ": unknown operator");
    } else {
      int n_in = static_cast<int>(node->numInputs());
      int n_out = static_cast<int>(node->numOutputs());
      if (n_in < info->min_inputs || (info->max_inputs >= 0 && n_in > info->max_inputs))
        problems.push_back(node->describe() + ": " + std::to_string(n_in) + " inputs, expected " +
                           std::to_string(info->min_inputs) + ".." +
                           (info->max_inputs < 0 ? std::string("any") : std::to_string(info->max_inputs)));
      if (n_out < info->min_outputs || (info->max_outputs >= 0 && n_out > info->max_outputs))
        problems.push_back(node->describe() + ": " + std::to_string(n_out) + " outputs, expected " +
                           std::to_string(info->min_outputs) + ".." +
                           (info->max_outputs < 0 ? std::string("any") : std::to_string(info->max_outputs)));
    }
    for (size_t i = 0; i < node->numInputs(); ++i) {
      const Value* in = node->input(i);
      if (in && !defined.count(in))
        problems.push_back(node->describe() + ": input " + std::to_string(i) + " '" + in->name() +
                           "' is not defined before it is used");
    }
    for (const Value* out : node->outputs()) {
      if (out->producer() != node)
        problems.push_back(node->describe() + ": output '" + out->name() + "' does not name it as producer");
      if (!producer.emplace(out, node).second) problems.push_back("value '" + out->name() + "' is produced twice");
      defined.insert(out);
      if (options.require_types) checkType(out, problems);
    }
  }
  if (graph.outputs().empty()) problems.push_back("graph '" + graph.name + "' has no outputs");
  for (const Value* v : graph.outputs())
    if (!defined.count(v)) problems.push_back("graph output '" + v->name() + "' is never defined");
  if (options.require_types)
    for (const Value* v : graph.inputs()) checkType(v, problems);
  return problems;
}

void verifyGraphOrThrow(const Graph& graph, const VerifyOptions& options, const OpRegistry& ops) {
  auto problems = verifyGraph(graph, options, ops);
  if (problems.empty()) return;
  std::ostringstream out;
  out << "graph '" << graph.name << "' is invalid:";
  for (const auto& p : problems) out << "\n  " << p;
  throw std::runtime_error(out.str());
}

}  // namespace vdla::ir
