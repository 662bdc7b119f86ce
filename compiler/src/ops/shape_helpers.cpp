#include "shape_helpers.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace vdla::ir {

const TensorType& inputType(const Node& node, size_t i) {
  const Value* v = node.input(i);
  if (!v) throw std::invalid_argument("input " + std::to_string(i) + " is missing");
  if (!v->hasType()) throw std::invalid_argument("input " + std::to_string(i) + " '" + v->name() + "' has no type");
  return v->type();
}

bool hasInput(const Node& node, size_t i) { return node.input(i) != nullptr; }

Shape broadcastShapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      throw std::invalid_argument("shapes " + rt::shapeToString(a) + " and " + rt::shapeToString(b) +
                                  " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void setOutputType(Node& node, size_t i, DType dtype, Shape shape) {
  node.output(i)->setType(TensorType{dtype, std::move(shape), rt::Layout::RowMajor});
}

int64_t normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    throw std::invalid_argument("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

std::string intsToString(const std::vector<int64_t>& values) { return rt::shapeToString(values); }

void expectDType(const TensorType& t, std::initializer_list<DType> allowed, const std::string& what) {
  if (std::find(allowed.begin(), allowed.end(), t.dtype) != allowed.end()) return;
  std::string names;
  size_t i = 0;
  for (DType d : allowed) {
    if (i) names += (i + 1 == allowed.size()) ? " or " : ", ";
    names += rt::dtypeName(d);
    ++i;
  }
  throw std::invalid_argument(what + " must be " + names + ", got " + rt::dtypeName(t.dtype));
}

void expectScalar(const TensorType& t, const std::string& what) {
  if (t.shape.size() > 1 || t.numElements() != 1)
    throw std::invalid_argument(what + " must be a scalar, got shape " + rt::shapeToString(t.shape));
}

void expectScalarOrVector(const TensorType& t, int64_t count, const std::string& what) {
  if (t.shape.size() <= 1 && t.numElements() == 1) return;
  if (t.shape.size() == 1 && t.shape[0] == count) return;
  throw std::invalid_argument(what + " must be a scalar or a 1-D tensor of " + std::to_string(count) +
                              " elements, got shape " + rt::shapeToString(t.shape));
}

bool isConstantInput(const Node& node, size_t i) {
  const Value* v = node.input(i);
  return v && v->isConstant();
}

std::vector<int64_t> constantInts(const Node& node, size_t i, const std::string& what) {
  const Value* v = node.input(i);
  if (!v) throw std::invalid_argument(what + " (input " + std::to_string(i) + ") is missing");
  if (!v->isConstant())
    throw std::invalid_argument(what + " (input " + std::to_string(i) + " '" + v->name() +
                                "') must be a constant (fold the computation that produces it first)");
  const Tensor& t = v->constant();
  if (t.dtype() == DType::F32 || t.dtype() == DType::Bool)
    throw std::invalid_argument(what + " must have an integer element type, got " + rt::dtypeName(t.dtype()));
  std::vector<int64_t> out(static_cast<size_t>(t.numElements()));
  for (int64_t k = 0; k < t.numElements(); ++k) out[k] = t.getAsInt(k);
  return out;
}

std::vector<int64_t> intsFromAttributeOrInput(const Node& node, const std::string& attribute, size_t input,
                                              bool* present) {
  if (node.attrs().has(attribute)) {
    if (hasInput(node, input))
      throw std::invalid_argument("'" + attribute + "' is given both as an attribute and as input " +
                                  std::to_string(input));
    *present = true;
    return node.attrs().getInts(attribute);
  }
  if (hasInput(node, input)) {
    *present = true;
    return constantInts(node, input, "'" + attribute + "'");
  }
  *present = false;
  return {};
}

DType dtypeAttribute(const AttributeMap& attrs, const std::string& name) {
  const rt::Attribute* a = attrs.find(name);
  if (!a) throw std::invalid_argument("missing attribute '" + name + "'");
  if (const std::string* s = std::get_if<std::string>(a)) {
    try {
      return rt::parseDType(*s);
    } catch (const std::exception&) {
      throw std::invalid_argument("attribute '" + name + "' names unknown element type \"" + *s + "\"");
    }
  }
  const int64_t v = attrs.getInt(name);
  switch (v) {
    case 1: return DType::F32;
    case 2: return DType::U8;
    case 3: return DType::I8;
    case 6: return DType::I32;
    case 7: return DType::I64;
    case 9: return DType::Bool;
    default:
      throw std::invalid_argument("attribute '" + name + "' = " + std::to_string(v) +
                                  " is an unsupported element type (supported ONNX types: 1 float, 2 uint8, "
                                  "3 int8, 6 int32, 7 int64, 9 bool)");
  }
}

void validateFusedActivation(const Node& node) {
  const AttributeMap& a = node.attrs();
  if (!a.has("activation")) {
    if (a.has("activation_min") || a.has("activation_max"))
      throw std::invalid_argument("attributes 'activation_min'/'activation_max' need activation=\"Clip\"");
    return;
  }
  const std::string& act = a.getString("activation");
  if (act == "Relu") {
    if (a.has("activation_min") || a.has("activation_max"))
      throw std::invalid_argument("attributes 'activation_min'/'activation_max' need activation=\"Clip\"");
    return;
  }
  if (act == "Clip") {
    double lo = a.getFloat("activation_min", -INFINITY);
    double hi = a.getFloat("activation_max", INFINITY);
    if (std::isnan(lo) || std::isnan(hi) || lo > hi) {
      std::ostringstream s;
      s << "attribute 'activation' Clip needs activation_min <= activation_max, got " << lo << " and " << hi;
      throw std::invalid_argument(s.str());
    }
    return;
  }
  throw std::invalid_argument("attribute 'activation' has unsupported value \"" + act +
                              "\" (supported: \"Relu\", \"Clip\")");
}

namespace {

std::vector<int64_t> listAttr(const AttributeMap& attrs, const char* name, size_t rank, int64_t fallback,
                              int64_t minimum) {
  std::vector<int64_t> v = attrs.getInts(name, std::vector<int64_t>(rank, fallback));
  if (v.size() != rank)
    throw std::invalid_argument(std::string("attribute '") + name + "' has " + std::to_string(v.size()) +
                                " values, expected " + std::to_string(rank) + " (one per spatial dimension)");
  for (int64_t x : v)
    if (x < minimum)
      throw std::invalid_argument(std::string("attribute '") + name +
                                  "' must hold values >= " + std::to_string(minimum) + ", got " + intsToString(v));
  return v;
}

int64_t ceilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

WindowGeometry inferWindow(const AttributeMap& attrs, const Shape& input_spatial, const std::vector<int64_t>& kernel,
                           bool is_pooling) {
  const size_t rank = input_spatial.size();
  if (kernel.size() != rank)
    throw std::invalid_argument("kernel " + intsToString(kernel) + " does not match the " + std::to_string(rank) +
                                " spatial dimensions of the input");
  for (int64_t k : kernel)
    if (k < 1) throw std::invalid_argument("kernel sizes must be >= 1, got " + intsToString(kernel));
  WindowGeometry g;
  g.kernel = kernel;
  g.strides = listAttr(attrs, "strides", rank, 1, 1);
  g.dilations = listAttr(attrs, "dilations", rank, 1, 1);
  int64_t ceil_mode = 0;
  if (is_pooling) {
    ceil_mode = attrs.getInt("ceil_mode", 0);
    if (ceil_mode != 0 && ceil_mode != 1)
      throw std::invalid_argument("attribute 'ceil_mode' must be 0 or 1, got " + std::to_string(ceil_mode));
  } else if (attrs.has("ceil_mode")) {
    throw std::invalid_argument("attribute 'ceil_mode' is not valid for this operator");
  }
  const std::string auto_pad = attrs.getString("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    throw std::invalid_argument("attribute 'auto_pad' has unsupported value \"" + auto_pad +
                                "\" (NOTSET, SAME_UPPER, SAME_LOWER or VALID)");
  std::vector<int64_t> pads(2 * rank, 0);
  if (attrs.has("pads")) {
    pads = attrs.getInts("pads");
    if (pads.size() != 2 * rank)
      throw std::invalid_argument("attribute 'pads' has " + std::to_string(pads.size()) + " values, expected " +
                                  std::to_string(2 * rank) + " (begin and end of each spatial dimension)");
    for (int64_t p : pads)
      if (p < 0) throw std::invalid_argument("attribute 'pads' must be non-negative, got " + intsToString(pads));
    if (auto_pad != "NOTSET" && std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; }))
      throw std::invalid_argument("attribute 'pads' cannot be combined with auto_pad=" + auto_pad);
  }
  g.pads_begin.assign(pads.begin(), pads.begin() + rank);
  g.pads_end.assign(pads.begin() + rank, pads.end());
  g.output.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t in = input_spatial[i];
    const int64_t s = g.strides[i];
    const int64_t dk = (kernel[i] - 1) * g.dilations[i] + 1;
    int64_t out;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = ceilDiv(in, s);
      int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
      int64_t small = total / 2, large = total - total / 2;
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? small : large;
      g.pads_end[i] = auto_pad == "SAME_UPPER" ? large : small;
    } else {
      if (auto_pad == "VALID") g.pads_begin[i] = g.pads_end[i] = 0;
      int64_t span = in + g.pads_begin[i] + g.pads_end[i] - dk;
      if (span < 0)
        throw std::invalid_argument(
            "window of extent " + std::to_string(dk) + " (kernel " + std::to_string(kernel[i]) + ", dilation " +
            std::to_string(g.dilations[i]) + ") is larger than the padded input extent " +
            std::to_string(in + g.pads_begin[i] + g.pads_end[i]) + " in spatial dimension " + std::to_string(i));
      if (ceil_mode) {
        out = ceilDiv(span, s) + 1;
        // The last window must start inside the input or its leading padding.
        if ((out - 1) * s >= in + g.pads_begin[i]) --out;
      } else {
        out = floorDiv(span, s) + 1;
      }
    }
    if (out < 1) throw std::invalid_argument("output spatial dimension " + std::to_string(i) + " would be empty");
    g.output[i] = out;
  }
  return g;
}

}  // namespace vdla::ir
