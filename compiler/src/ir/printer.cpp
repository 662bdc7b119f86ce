#include "vdla/compiler/ir/printer.h"

#include <sstream>

namespace vdla::ir {

namespace {

std::string typed(const Value* v) {
  return "%" + v->name() + ": " + (v->hasType() ? v->type().toString() : std::string("?"));
}

}  // namespace

void printGraph(std::ostream& out, const Graph& graph, const PrintOptions& options) {
  out << "graph " << graph.name << "(";
  for (size_t i = 0; i < graph.inputs().size(); ++i) out << (i ? ", " : "") << typed(graph.inputs()[i]);
  out << ") {\n";
  if (options.show_constants)
    for (const Value* c : graph.constants()) out << "  const " << typed(c) << "\n";
  for (const Node* node : graph.nodes()) {
    out << "  ";
    for (size_t i = 0; i < node->numOutputs(); ++i) out << (i ? ", " : "") << typed(node->output(i));
    out << " = " << node->qualifiedOp() << "(";
    for (size_t i = 0; i < node->numInputs(); ++i) {
      const Value* in = node->input(i);
      out << (i ? ", " : "") << (in ? "%" + in->name() : std::string("_"));
    }
    out << ")";
    if (!node->attrs().empty()) {
      out << " {";
      bool first = true;
      for (const auto& [name, value] : node->attrs().all()) {
        out << (first ? "" : ", ") << name << "=" << rt::attributeToString(value);
        first = false;
      }
      out << "}";
    }
    if (options.show_node_names) out << "  # " << node->name();
    out << "\n";
  }
  out << "  return ";
  for (size_t i = 0; i < graph.outputs().size(); ++i) out << (i ? ", " : "") << "%" << graph.outputs()[i]->name();
  out << "\n}\n";
}

std::string graphToString(const Graph& graph, const PrintOptions& options) {
  std::ostringstream out;
  printGraph(out, graph, options);
  return out.str();
}

}  // namespace vdla::ir
