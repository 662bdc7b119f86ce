#include "vdla/runtime/attributes.h"

#include <sstream>
#include <stdexcept>

namespace vdla::rt {

namespace {

template <typename T>
const T& getAs(const std::map<std::string, Attribute>& map, const std::string& name, const char* kind) {
  auto it = map.find(name);
  if (it == map.end()) throw std::invalid_argument("missing attribute '" + name + "'");
  if (const T* v = std::get_if<T>(&it->second)) return *v;
  throw std::invalid_argument("attribute '" + name + "' is " + attributeKindName(it->second) + ", expected " + kind);
}

template <typename T>
void printList(std::ostream& out, const std::vector<T>& values) {
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) out << (i ? "," : "") << values[i];
  out << "]";
}

}  // namespace

const char* attributeKindName(const Attribute& a) {
  static const char* const names[] = {"int", "float", "string", "ints", "floats", "tensor"};
  return names[a.index()];
}

std::string attributeToString(const Attribute& a) {
  std::ostringstream out;
  if (auto* i = std::get_if<int64_t>(&a))
    out << *i;
  else if (auto* f = std::get_if<double>(&a))
    out << *f;
  else if (auto* s = std::get_if<std::string>(&a))
    out << '"' << *s << '"';
  else if (auto* is = std::get_if<std::vector<int64_t>>(&a))
    printList(out, *is);
  else if (auto* fs = std::get_if<std::vector<double>>(&a))
    printList(out, *fs);
  else if (auto* t = std::get_if<Tensor>(&a))
    out << "tensor<" << t->type().toString() << ">";
  return out.str();
}

const Attribute* AttributeMap::find(const std::string& name) const {
  auto it = map_.find(name);
  return it == map_.end() ? nullptr : &it->second;
}

int64_t AttributeMap::getInt(const std::string& name) const { return getAs<int64_t>(map_, name, "int"); }
int64_t AttributeMap::getInt(const std::string& name, int64_t fallback) const {
  return has(name) ? getInt(name) : fallback;
}
double AttributeMap::getFloat(const std::string& name) const {
  // Integers are accepted where a float is expected (exporters write alpha=1 as int).
  auto it = map_.find(name);
  if (it != map_.end())
    if (auto* i = std::get_if<int64_t>(&it->second)) return static_cast<double>(*i);
  return getAs<double>(map_, name, "float");
}
double AttributeMap::getFloat(const std::string& name, double fallback) const {
  return has(name) ? getFloat(name) : fallback;
}
const std::string& AttributeMap::getString(const std::string& name) const {
  return getAs<std::string>(map_, name, "string");
}
std::string AttributeMap::getString(const std::string& name, const std::string& fallback) const {
  return has(name) ? getString(name) : fallback;
}
const std::vector<int64_t>& AttributeMap::getInts(const std::string& name) const {
  return getAs<std::vector<int64_t>>(map_, name, "ints");
}
std::vector<int64_t> AttributeMap::getInts(const std::string& name, const std::vector<int64_t>& fallback) const {
  return has(name) ? getInts(name) : fallback;
}
const std::vector<double>& AttributeMap::getFloats(const std::string& name) const {
  return getAs<std::vector<double>>(map_, name, "floats");
}
const Tensor& AttributeMap::getTensor(const std::string& name) const { return getAs<Tensor>(map_, name, "tensor"); }

AttributeMap attributesWithPrefix(const AttributeMap& attrs, const std::string& prefix) {
  AttributeMap out;
  for (const auto& [name, value] : attrs.all())
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0)
      out.set(name.substr(prefix.size()), value);
  return out;
}

}  // namespace vdla::rt
