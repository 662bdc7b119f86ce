// Node attributes: named integers, floats, strings, lists and tensors. Used by
// the compiler's IR and carried unchanged into compiled artifacts, where the
// runtime's kernels read them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "vdla/runtime/tensor.h"

namespace vdla::rt {

using Attribute = std::variant<int64_t, double, std::string, std::vector<int64_t>, std::vector<double>, Tensor>;

const char* attributeKindName(const Attribute& a);  // "int", "float", "string", "ints", "floats", "tensor"
std::string attributeToString(const Attribute& a);  // short readable form for dumps

class AttributeMap {
 public:
  bool has(const std::string& name) const { return map_.count(name) != 0; }
  void set(const std::string& name, Attribute value) { map_[name] = std::move(value); }
  void erase(const std::string& name) { map_.erase(name); }
  const Attribute* find(const std::string& name) const;

  // Typed getters. Without a default they throw when the attribute is missing;
  // every getter throws when the attribute has another kind. Messages name the
  // attribute; callers add the node.
  int64_t getInt(const std::string& name) const;
  int64_t getInt(const std::string& name, int64_t fallback) const;
  double getFloat(const std::string& name) const;
  double getFloat(const std::string& name, double fallback) const;
  const std::string& getString(const std::string& name) const;
  std::string getString(const std::string& name, const std::string& fallback) const;
  const std::vector<int64_t>& getInts(const std::string& name) const;
  std::vector<int64_t> getInts(const std::string& name, const std::vector<int64_t>& fallback) const;
  const std::vector<double>& getFloats(const std::string& name) const;
  const Tensor& getTensor(const std::string& name) const;

  const std::map<std::string, Attribute>& all() const { return map_; }
  bool empty() const { return map_.empty(); }
  size_t size() const { return map_.size(); }

 private:
  std::map<std::string, Attribute> map_;
};

// The attributes whose names start with `prefix`, the prefix taken off (a
// node that carries a second operator's attributes under a prefix: the
// accelerator back end's fused expansion, "expand_").
AttributeMap attributesWithPrefix(const AttributeMap& attrs, const std::string& prefix);

}  // namespace vdla::rt
