#include "vdla/compiler/ir/op_registry.h"

#include <stdexcept>

#include "../ops/register_ops.h"

namespace vdla::ir {

const OpRegistry& OpRegistry::builtin() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerBuiltinOps(r);
    return r;
  }();
  return registry;
}

void OpRegistry::add(OpInfo info) {
  std::string name = info.name;
  if (!ops_.emplace(name, std::move(info)).second) throw std::logic_error("operator '" + name + "' registered twice");
}

const OpInfo* OpRegistry::find(const std::string& qualified_op) const {
  auto it = ops_.find(qualified_op);
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, info] : ops_) out.push_back(name);
  return out;
}

}  // namespace vdla::ir
