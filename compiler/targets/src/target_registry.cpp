#include "vdla/compiler/target_registry.h"

#include <stdexcept>

#include "targets.h"

namespace vdla {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

const std::vector<Target>& targetRegistry() {
  // Built on first use (thread-safe); nothing registers itself.
  static const std::vector<Target> table = {targets::refTarget(), targets::vdlaTarget(), targets::llvmTarget(),
                                            targets::cudaTarget()};
  return table;
}

const Target* findTarget(const std::string& name) {
  for (const Target& t : targetRegistry())
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> compileTargets() {
  std::vector<std::string> names;
  for (const Target& t : targetRegistry()) names.push_back(t.name);
  return names;
}

bool isTargetAvailable(const std::string& target) {
  const Target* t = findTarget(target);
  return t && t->available;
}

const Target& requireTarget(const std::string& name) {
  const Target* t = findTarget(name);
  if (!t) throw std::invalid_argument("unknown target '" + name + "' (known: " + joined(compileTargets()) + ")");
  if (!t->available) {
    std::vector<std::string> available;
    for (const Target& other : targetRegistry())
      if (other.available) available.push_back(other.name);
    throw std::runtime_error("target '" + name + "' is not available in this build: " + t->unavailable_reason +
                             " (available: " + joined(available) + ")");
  }
  return *t;
}

}  // namespace vdla
