#include "attributes.h"

#include <stdexcept>

#include "import_limits.h"
#include "tensor_proto.h"

namespace vdla::frontend::detail {

namespace {

using AP = onnx::AttributeProto;

int64_t checkedInt(int64_t v, const std::string& name) {
  if (v > kMaxIntValue || v < -kMaxIntValue)
    throw std::runtime_error("attribute '" + name + "' value " + std::to_string(v) + " is out of range (|v| <= 2^31)");
  return v;
}

// Old exporters leave `type` unset; the field that is filled tells the kind.
AP::AttributeType kindOf(const AP& a) {
  if (a.type() != AP::UNDEFINED) return a.type();
  if (a.has_f()) return AP::FLOAT;
  if (a.has_i()) return AP::INT;
  if (a.has_s()) return AP::STRING;
  if (a.has_t()) return AP::TENSOR;
  if (a.has_g()) return AP::GRAPH;
  if (a.floats_size()) return AP::FLOATS;
  if (a.ints_size()) return AP::INTS;
  if (a.strings_size()) return AP::STRINGS;
  if (a.tensors_size()) return AP::TENSORS;
  if (a.graphs_size()) return AP::GRAPHS;
  return AP::UNDEFINED;
}

}  // namespace

rt::Attribute attributeFromProto(const AP& a) {
  const std::string& name = a.name();
  if (a.has_ref_attr_name())
    throw std::runtime_error("attribute '" + name + "' refers to a function attribute, which is not supported");
  const AP::AttributeType kind = kindOf(a);
  switch (kind) {
    case AP::INT: return checkedInt(a.i(), name);
    case AP::FLOAT: return static_cast<double>(a.f());
    case AP::STRING: return a.s();
    case AP::INTS: {
      std::vector<int64_t> v;
      v.reserve(static_cast<size_t>(a.ints_size()));
      for (int64_t x : a.ints()) v.push_back(checkedInt(x, name));
      return v;
    }
    case AP::FLOATS: return std::vector<double>(a.floats().begin(), a.floats().end());
    case AP::TENSOR: try { return tensorFromProto(a.t());
      } catch (const std::exception& e) {
        throw std::runtime_error("attribute '" + name + "': tensor: " + e.what());
      }
    case AP::UNDEFINED: throw std::runtime_error("attribute '" + name + "' has no value");
    default: break;
  }
  const std::string kind_name =
      AP::AttributeType_IsValid(kind) ? AP::AttributeType_Name(kind) : "type " + std::to_string(static_cast<int>(kind));
  throw std::runtime_error("attribute '" + name + "' has kind " + kind_name +
                           ", which is not supported (supported: INT, FLOAT, STRING, INTS, FLOATS, TENSOR)");
}

rt::AttributeMap attributesFromNode(const onnx::NodeProto& node) {
  rt::AttributeMap map;
  for (const AP& a : node.attribute()) {
    if (a.name().empty()) throw std::runtime_error("an attribute has no name");
    if (map.has(a.name())) throw std::runtime_error("attribute '" + a.name() + "' is given twice");
    map.set(a.name(), attributeFromProto(a));
  }
  return map;
}

}  // namespace vdla::frontend::detail
