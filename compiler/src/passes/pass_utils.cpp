#include "pass_utils.h"

#include <stdexcept>

#include "vdla/compiler/ir/op_registry.h"

namespace vdla::passes::detail {

void inferNodeTypes(ir::Node& node) {
  const ir::OpInfo* info = ir::OpRegistry::builtin().find(node.qualifiedOp());
  if (!info) throw std::runtime_error(node.describe() + ": unsupported operator");
  try {
    info->infer_types(node);
  } catch (const std::exception& e) {
    throw std::runtime_error(node.describe() + ": " + e.what());
  }
}

void replaceValue(ir::Graph& graph, ir::Value* from, ir::Value* to) {
  if (graph.isGraphOutput(from) && !graph.isGraphOutput(to) && !to->isGraphInput()) {
    std::string name = from->name();
    from->setName(to->name());
    to->setName(name);
  }
  graph.replaceAllUsesWith(from, to);
}

bool hasSingleUse(const ir::Graph& graph, const ir::Value* v) {
  return graph.users(v).size() == 1 && !graph.isGraphOutput(v);
}

const rt::Tensor* constantOf(const ir::Value* v) { return v && v->isConstant() ? &v->constant() : nullptr; }

std::vector<double> toDoubles(const rt::Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numElements()));
  if (t.dtype() == rt::DType::F32) {
    const float* p = t.data<float>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.getAsDouble(static_cast<int64_t>(i));
  }
  return out;
}

std::optional<double> scalarConstant(const ir::Value* v) {
  const rt::Tensor* t = constantOf(v);
  if (!t || t->numElements() != 1) return std::nullopt;
  return t->getAsDouble(0);
}

rt::Tensor floatTensor(const std::vector<double>& values, rt::Shape shape) {
  rt::Tensor t(rt::DType::F32, std::move(shape));
  if (static_cast<int64_t>(values.size()) != t.numElements())
    throw std::logic_error("floatTensor: " + std::to_string(values.size()) + " values for " + t.type().toString());
  float* p = t.data<float>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = static_cast<float>(values[i]);
  return t;
}

}  // namespace vdla::passes::detail
