#include "vdla/runtime/kernel_registry.h"

namespace vdla::rt {

const Tensor& KernelArgs::input(size_t i) const {
  if (!hasInput(i)) throw KernelError("input " + std::to_string(i) + " is missing");
  return *inputs[i];
}

Tensor& KernelArgs::output(size_t i) const {
  if (i >= outputs.size() || !outputs[i]) throw KernelError("output " + std::to_string(i) + " is missing");
  return *outputs[i];
}

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry registry;
  return registry;
}

void KernelRegistry::add(const std::string& name, KernelFn fn) {
  if (!kernels_.emplace(name, std::move(fn)).second) throw std::logic_error("kernel '" + name + "' registered twice");
}

const KernelFn* KernelRegistry::find(const std::string& name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

const KernelFn& KernelRegistry::get(const std::string& name) const {
  if (const KernelFn* fn = find(name)) return *fn;
  throw std::runtime_error("no kernel named '" + name + "' is registered in this runtime");
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, fn] : kernels_) out.push_back(name);
  return out;
}

}  // namespace vdla::rt
