#include "vdla/compiler/quant/qlinear_to_qconv.h"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/quant/requant.h"
#include "vdla/runtime/qconv_attributes.h"

namespace vdla::quant {

namespace {

using ir::DType;
using ir::Graph;
using ir::Node;
using ir::Value;

// ---------------------------------------------------------------- operand roles

// Where a quantised activation sits in an integer operator: the data slot
// (an input index, or the output for kOutput) and the slot of its zero point.
constexpr int kOutput = -1;
struct QuantSlot {
  int data;
  size_t zero_point;
};

// The activation slots of the integer operators this pass understands. Weight
// operands (QLinearConv's w, QGemm's B) are not activations: they keep their type.
std::vector<QuantSlot> quantSlots(const Node& n) {
  const std::string op = n.qualifiedOp();
  if (op == "QuantizeLinear") return {{kOutput, 2}};
  if (op == "DequantizeLinear") return {{0, 2}};
  if (op == "QLinearConv") return {{0, 2}, {kOutput, 7}};
  if (op == "com.microsoft.QLinearAdd" || op == "com.microsoft.QLinearMul") return {{0, 2}, {3, 5}, {kOutput, 7}};
  if (op == "com.microsoft.QLinearGlobalAveragePool") return {{0, 2}, {kOutput, 4}};
  if (op == "QLinearMatMul") return {{0, 2}, {3, 5}, {kOutput, 7}};
  if (op == "com.microsoft.QGemm") {
    // Without y_scale the output is f32 and has no zero point.
    if (n.input(7)) return {{0, 2}, {kOutput, 8}};
    return {{0, 2}};
  }
  return {};
}

// Operators that move or select elements without arithmetic, so that an int8
// tensor with the shifted zero point stands for the same real values (MaxPool:
// the shift is monotonic). Their data inputs and outputs convert together.
bool isValuePreserving(const Node& n) {
  static const std::set<std::string> ops = {"MaxPool",   "Flatten",  "Reshape", "Squeeze", "Unsqueeze",
                                            "Transpose", "Identity", "Concat",  "Slice",   "Split"};
  return n.domain().empty() && ops.count(n.op()) > 0;
}

bool isU8Activation(const Value* v) { return v && !v->isConstant() && v->hasType() && v->type().dtype == DType::U8; }

// ------------------------------------------------------------ signed activations

class SignedActivations {
 public:
  explicit SignedActivations(Graph& g) : g_(g) {}

  size_t run() {
    collectCandidates();
    pruneToFixedPoint();
    apply();
    return chosen_.size();
  }

 private:
  // A u8 value may turn int8 when everything that produces or reads it knows.
  bool slotIsActivation(const Node& n, int index) const {
    for (const QuantSlot& s : quantSlots(n))
      if (s.data == index) return true;
    return false;
  }

  void collectCandidates() {
    for (Value* v : g_.values())
      if (isU8Activation(v) && !v->isGraphInput() && !g_.isGraphOutput(v) && v->producer()) chosen_.insert(v);
  }

  bool acceptable(Value* v) const {
    const Node* p = v->producer();
    size_t out_index = 0;
    while (p->output(out_index) != v) ++out_index;
    if (isValuePreserving(*p)) {
      for (Value* in : p->inputs())
        if (in && in->hasType() && in->type().dtype == DType::U8 && !chosen_.count(in)) return false;
    } else if (out_index != 0 || !slotIsActivation(*p, kOutput)) {
      return false;
    }
    for (Node* user : g_.users(v)) {
      if (isValuePreserving(*user)) {
        for (Value* out : user->outputs())
          if (out->type().dtype == DType::U8 && !chosen_.count(out)) return false;
        continue;
      }
      for (size_t i = 0; i < user->numInputs(); ++i)
        if (user->input(i) == v && !slotIsActivation(*user, static_cast<int>(i))) return false;
    }
    return true;
  }

  void pruneToFixedPoint() {
    for (bool changed = true; changed;) {
      changed = false;
      for (auto it = chosen_.begin(); it != chosen_.end();) {
        if (acceptable(*it)) {
          ++it;
        } else {
          it = chosen_.erase(it);
          changed = true;
        }
      }
    }
  }

  // The int8 zero point standing for a uint8 one (absent: 0 -> -128).
  Value* signedZeroPoint(Value* zp) {
    if (zp && !zp->isConstant()) throw std::invalid_argument("zero point '" + zp->name() + "' is not a constant");
    auto it = converted_zero_points_.find(zp);
    if (it != converted_zero_points_.end()) return it->second;
    rt::Tensor shifted;
    if (!zp) {
      shifted = rt::Tensor::scalar<int8_t>(-128);
    } else {
      const rt::Tensor& u = zp->constant();
      if (u.dtype() != DType::U8)
        throw std::invalid_argument("zero point '" + zp->name() + "' of a uint8 value is not uint8");
      shifted = rt::Tensor(DType::I8, u.shape());
      for (int64_t i = 0; i < u.numElements(); ++i)
        shifted.data<int8_t>()[i] = static_cast<int8_t>(int{u.data<uint8_t>()[i]} - 128);
    }
    Value* c = g_.addConstant(g_.uniqueName((zp ? zp->name() : std::string("zero_point")) + ".s8"), shifted);
    converted_zero_points_[zp] = c;
    return c;
  }

  void setSlot(Node* n, size_t i, Value* v) {
    while (n->numInputs() <= i) n->addInput(nullptr);
    n->setInput(i, v);
  }

  // A uint8 constant as the int8 constant with the same real values
  // (value - 128; its zero point shifts with it).
  Value* signedConstant(Value* c) {
    auto it = converted_constants_.find(c);
    if (it != converted_constants_.end()) return it->second;
    const rt::Tensor& u = c->constant();
    rt::Tensor shifted(DType::I8, u.shape());
    for (int64_t i = 0; i < u.numElements(); ++i)
      shifted.data<int8_t>()[i] = static_cast<int8_t>(int{u.data<uint8_t>()[i]} - 128);
    Value* s = g_.addConstant(g_.uniqueName(c->name() + ".s8"), shifted);
    converted_constants_[c] = s;
    return s;
  }

  void apply() {
    for (Node* n : g_.nodes()) {
      bool signed_operand = false;
      for (const QuantSlot& s : quantSlots(*n)) {
        Value* data = s.data == kOutput ? n->output(0) : n->input(static_cast<size_t>(s.data));
        if (!chosen_.count(data)) continue;
        setSlot(n, s.zero_point, signedZeroPoint(n->input(s.zero_point)));
        signed_operand = signed_operand || s.data != kOutput;
      }
      // An element-wise operator's other operands must have the type of the
      // one that turned int8: a uint8 constant among them (the bias that a
      // QOperator export adds to a MatMul with QLinearAdd) turns int8 too.
      // onnxruntime's QLinearAdd folds the zero points into one float
      // constant, which rounds differently once every value moves by 128:
      // the kernel is told to compute on the uint8 values it stands for.
      if (signed_operand && n->qualifiedOp() == "com.microsoft.QLinearAdd")
        n->attrs().set("unsigned_domain", int64_t{1});
      if (!signed_operand || n->qualifiedOp() == "QLinearConv" || n->qualifiedOp() == "com.microsoft.QGemm") continue;
      for (const QuantSlot& s : quantSlots(*n)) {
        if (s.data == kOutput) continue;
        Value* v = n->input(static_cast<size_t>(s.data));
        if (!v || !v->isConstant() || v->constant().dtype() != DType::U8) continue;
        setSlot(n, static_cast<size_t>(s.data), signedConstant(v));
        setSlot(n, s.zero_point, signedZeroPoint(n->input(s.zero_point)));
      }
    }
    for (Value* v : chosen_) {
      rt::TensorType t = v->type();
      t.dtype = DType::I8;
      v->setType(t);
    }
  }

  Graph& g_;
  std::set<Value*> chosen_;
  std::map<Value*, Value*> converted_zero_points_;
  std::map<Value*, Value*> converted_constants_;
};

// ------------------------------------------------------------ QLinearConv, QGemm

const rt::Tensor* constantOf(const Value* v) { return v && v->isConstant() ? &v->constant() : nullptr; }

std::optional<double> scalarF32(const Value* v) {
  const rt::Tensor* t = constantOf(v);
  if (!t || t->dtype() != DType::F32 || t->numElements() != 1) return std::nullopt;
  return static_cast<double>(t->data<float>()[0]);
}

std::optional<int32_t> scalarI8(const Value* v, int32_t absent) {
  if (!v) return absent;
  const rt::Tensor* t = constantOf(v);
  if (!t || t->dtype() != DType::I8 || t->numElements() != 1) return std::nullopt;
  return int32_t{t->data<int8_t>()[0]};
}

// Everything a vdla.QConv needs from an integer convolution or dense layer.
struct IntegerLayer {
  Value* x = nullptr;             // i8 activations
  const rt::Tensor* w = nullptr;  // i8 [O, C/group, KH, KW] (or [O, K] for dense)
  double x_scale = 0, y_scale = 0;
  int32_t x_zero_point = 0, y_zero_point = 0;
  std::vector<double> w_scale;  // one per output channel
  std::vector<int64_t> bias;    // int32 bias in accumulator units, or empty
};

// Why the layer cannot become a vdla.QConv, or "" when it can.
std::string readCommon(const Node& n, size_t x_i, size_t w_i, size_t y_scale_i, size_t y_zp_i, size_t bias_i,
                       IntegerLayer* L) {
  L->x = n.input(x_i);
  if (!L->x->hasType() || L->x->type().dtype != DType::I8) return "its input is not int8";
  if (n.output(0)->type().dtype != DType::I8) return "its output is not int8";
  L->w = constantOf(n.input(w_i));
  if (!L->w || L->w->dtype() != DType::I8) return "its weights are not an int8 constant";
  const int64_t channels = L->w->dim(0);
  auto xs = scalarF32(n.input(x_i + 1));
  auto ys = scalarF32(n.input(y_scale_i));
  auto xz = scalarI8(n.input(x_i + 2), 0);
  auto yz = scalarI8(n.input(y_zp_i), 0);
  if (!xs || !ys || !xz || !yz) return "its activation scales or zero points are not per-tensor constants";
  L->x_scale = *xs;
  L->y_scale = *ys;
  L->x_zero_point = *xz;
  L->y_zero_point = *yz;
  if (!(L->x_scale > 0) || !(L->y_scale > 0) || !std::isfinite(L->x_scale / L->y_scale))
    return "its activation scales are not positive and finite";
  const rt::Tensor* ws = constantOf(n.input(w_i + 1));
  if (!ws || ws->dtype() != DType::F32 || (ws->numElements() != 1 && ws->numElements() != channels))
    return "its weight scale is neither per tensor nor per output channel";
  for (int64_t o = 0; o < channels; ++o) {
    const double s = ws->data<float>()[ws->numElements() == 1 ? 0 : o];
    if (!(s >= 0) || !std::isfinite(s)) return "weight scale of channel " + std::to_string(o) + " is invalid";
    L->w_scale.push_back(s);
  }
  if (const Value* wz = n.input(w_i + 2)) {
    const rt::Tensor* t = constantOf(wz);
    if (!t) return "its weight zero point is not a constant";
    for (int64_t i = 0; i < t->numElements(); ++i)
      if (t->dtype() != DType::I8 || t->data<int8_t>()[i] != 0) return "its weight zero point is not 0";
  }
  if (const Value* b = n.input(bias_i)) {
    const rt::Tensor* t = constantOf(b);
    if (!t || t->dtype() != DType::I32 || t->numElements() != channels) return "its bias is not an int32 constant";
    for (int64_t o = 0; o < channels; ++o) L->bias.push_back(t->data<int32_t>()[o]);
  }
  return "";
}

// The vdla.QConv constants of an integer layer. The model's accumulator is
// sum (x - zx) * w; the accelerator's is sum x * w over the window padded with
// zx, so the bias absorbs -zx * sum(w) per output channel.
struct QConvParts {
  rt::Tensor weights, bias1, mult, bias2;
  rt::QConvAttributes attrs;
};

// onnxruntime's form: the scale x_scale * w_scale / y_scale in binary32, in
// that order, and the zero point after the rounding. bias1 wraps to int32
// like every sum of the definition, so the accumulator equals onnxruntime's
// int32 sum(x - zx) * w + bias whatever the operands.
QConvParts buildFloatParts(const IntegerLayer& L, rt::Tensor weights4d, rt::QConvAttributes geometry) {
  const int64_t channels = weights4d.dim(0), per = weights4d.numElements() / channels;
  const int8_t* w = weights4d.data<int8_t>();
  std::vector<int32_t> bias1, scale_bits;
  for (int64_t o = 0; o < channels; ++o) {
    int64_t sum_w = 0;
    for (int64_t i = 0; i < per; ++i) sum_w += w[o * per + i];
    const int64_t bias = (L.bias.empty() ? 0 : L.bias[o]) - int64_t{L.x_zero_point} * sum_w;
    bias1.push_back(static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(bias))));
    const float scale =
        static_cast<float>(L.x_scale) * static_cast<float>(L.w_scale[o]) / static_cast<float>(L.y_scale);
    int32_t bits = 0;
    std::memcpy(&bits, &scale, sizeof bits);
    scale_bits.push_back(bits);
  }
  auto vec = [](const std::vector<int32_t>& v) {
    return rt::Tensor::fromVector<int32_t>({static_cast<int64_t>(v.size())}, v);
  };
  QConvParts parts;
  parts.weights = std::move(weights4d);
  parts.bias1 = vec(bias1);
  parts.mult = vec(scale_bits);
  parts.bias2 = vec(std::vector<int32_t>(static_cast<size_t>(channels), 0));
  parts.attrs = geometry;
  parts.attrs.float_requant = true;
  parts.attrs.y_zero_point = L.y_zero_point;
  parts.attrs.x_zero_point = L.x_zero_point;
  return parts;
}

QConvParts buildParts(const IntegerLayer& L, rt::Tensor weights4d, rt::QConvAttributes geometry, RequantForm form) {
  if (form == RequantForm::Float) return buildFloatParts(L, std::move(weights4d), geometry);
  const int64_t channels = weights4d.dim(0), per = weights4d.numElements() / channels;
  const int8_t* w = weights4d.data<int8_t>();
  RequantSpec spec;
  spec.output_zero_point = L.y_zero_point;
  for (int64_t o = 0; o < channels; ++o) {
    int64_t sum_w = 0;
    for (int64_t i = 0; i < per; ++i) sum_w += w[o * per + i];
    spec.multiplier.push_back(L.x_scale * L.w_scale[o] / L.y_scale);
    spec.bias.push_back((L.bias.empty() ? 0 : L.bias[o]) - int64_t{L.x_zero_point} * sum_w);
    spec.acc_bound.push_back(accumulatorBound(w + o * per, per));
  }
  spec.allow_wide_product = true;
  RequantParams p = chooseRequantParams(spec);
  QConvParts parts;
  parts.weights = std::move(weights4d);
  auto vec = [](const std::vector<int32_t>& v) {
    return rt::Tensor::fromVector<int32_t>({static_cast<int64_t>(v.size())}, v);
  };
  parts.bias1 = vec(p.bias1);
  parts.mult = vec(p.mult);
  parts.bias2 = vec(p.bias2);
  parts.attrs = geometry;
  parts.attrs.shift1 = p.shift1;
  parts.attrs.wide_product = p.wide_product;
  parts.attrs.shift2 = p.shift2;
  parts.attrs.clip_lo = p.clip_lo;
  parts.attrs.clip_hi = p.clip_hi;
  parts.attrs.x_zero_point = L.x_zero_point;
  return parts;
}

class LayerConversion {
 public:
  LayerConversion(Graph& g, QLinearConversionReport& report) : g_(g), report_(report), form_(report.form) {}

  void run() {
    for (Node* n : g_.nodes()) {
      const std::string op = n->qualifiedOp();
      if (op != "QLinearConv" && op != "com.microsoft.QGemm") continue;
      std::string why = op == "QLinearConv" ? convertConv(n) : convertGemm(n);
      if (!why.empty()) report_.kept.emplace_back(n->name(), why);
    }
  }

 private:
  // New values are typed as they are made: a later layer reads them before
  // the graph is re-typed as a whole.
  static void setType(Value* v, rt::Shape shape) { v->setType({DType::I8, std::move(shape), rt::Layout::RowMajor}); }

  Value* emitQConv(Node* before, const std::string& name, Value* x, QConvParts parts, rt::Shape y_shape) {
    rt::AttributeMap attrs;
    rt::writeQConvAttributes(parts.attrs, attrs);
    std::vector<Value*> inputs = {x, g_.addConstant(g_.uniqueName(name + ".weight"), std::move(parts.weights)),
                                  g_.addConstant(g_.uniqueName(name + ".bias1"), std::move(parts.bias1)),
                                  g_.addConstant(g_.uniqueName(name + ".mult"), std::move(parts.mult)),
                                  g_.addConstant(g_.uniqueName(name + ".bias2"), std::move(parts.bias2))};
    Node* q = g_.insertNodeBefore(before, "QConv", inputs, 1, std::move(attrs), g_.uniqueName(name + ".qconv"), "vdla");
    setType(q->output(0), std::move(y_shape));
    return q->output(0);
  }

  // Replaces n's output by `to` (which takes the output's name) and removes n.
  void replaceNode(Node* n, Value* to) {
    Value* from = n->output(0);
    const std::string name = from->name();
    g_.replaceAllUsesWith(from, to);
    g_.removeNode(n);
    to->setName(name);
  }

  std::string convertConv(Node* n) {
    IntegerLayer L;
    std::string why = readCommon(*n, 0, 3, 6, 7, 8, &L);
    if (!why.empty()) return why;
    if (L.w->rank() != 4) return "it is not a 2-D convolution";
    const rt::AttributeMap& a = n->attrs();
    const std::string auto_pad = a.getString("auto_pad", "NOTSET");
    if (auto_pad != "NOTSET") return "auto_pad=" + auto_pad + " is not supported (pads are explicit after import)";
    rt::QConvAttributes geometry;
    auto ints = [&](const char* key, std::vector<int64_t> fallback) { return a.getInts(key, fallback); };
    const auto strides = ints("strides", {1, 1}), dilations = ints("dilations", {1, 1}),
               pads = ints("pads", {0, 0, 0, 0});
    if (strides.size() != 2 || dilations.size() != 2 || pads.size() != 4) return "its attributes are not 2-D";
    for (int i = 0; i < 2; ++i) {
      geometry.stride[i] = strides[i];
      geometry.dilation[i] = dilations[i];
    }
    for (int i = 0; i < 4; ++i) geometry.pads[i] = pads[i];
    geometry.group = a.getInt("group", 1);
    QConvParts parts;
    try {
      parts = buildParts(L, *L.w, geometry, form_);
    } catch (const std::exception& e) {
      return std::string("no exact requantisation: ") + e.what();
    }
    Value* y = emitQConv(n, n->name(), L.x, std::move(parts), n->output(0)->type().shape);
    replaceNode(n, y);
    ++report_.convolutions;
    return "";
  }

  Value* reshape(Node* before, Value* x, std::vector<int64_t> dims, const std::string& name) {
    Value* shape = g_.addConstant(g_.uniqueName(name + ".shape"),
                                  rt::Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims));
    Value* y = g_.insertNodeBefore(before, "Reshape", {x, shape}, 1, {}, g_.uniqueName(name))->output(0);
    setType(y, std::move(dims));
    return y;
  }

  std::string convertGemm(Node* n) {
    if (!n->input(7)) return "its output is f32";
    const rt::AttributeMap& a = n->attrs();
    if (a.getInt("transA", 0) != 0 || a.getInt("transB", 0) != 1)
      return "only transA=0, transB=1 maps onto a 1x1 convolution";
    if (a.getFloat("alpha", 1.0) != 1.0) return "alpha is not 1";
    IntegerLayer L;
    std::string why = readCommon(*n, 0, 3, 7, 8, 6, &L);
    if (!why.empty()) return why;
    if (L.w->rank() != 2 || L.x->type().shape.size() != 2) return "its operands are not 2-D";
    const int64_t batch = L.x->type().shape[0], k = L.w->dim(1), out = L.w->dim(0);
    rt::Tensor w4(DType::I8, {out, k, 1, 1});
    std::copy(L.w->data<int8_t>(), L.w->data<int8_t>() + out * k, w4.data<int8_t>());
    const rt::QConvAttributes one_by_one;  // stride 1, no padding
    QConvParts parts;
    try {
      parts = buildParts(L, std::move(w4), one_by_one, form_);
    } catch (const std::exception& e) {
      return std::string("no exact requantisation: ") + e.what();
    }
    Value* x4 = reshape(n, L.x, {batch, k, 1, 1}, n->name() + ".to_nchw");
    Value* y4 = emitQConv(n, n->name(), x4, std::move(parts), {batch, out, 1, 1});
    replaceNode(n, reshape(n, y4, {batch, out}, n->name() + ".to_rows"));
    ++report_.dense;
    return "";
  }

  Graph& g_;
  QLinearConversionReport& report_;
  RequantForm form_;
};

}  // namespace

bool hasQLinearOperators(const ir::Graph& graph) {
  for (const Node* n : graph.nodes()) {
    const std::string op = n->qualifiedOp();
    if (op == "QLinearConv" || op == "com.microsoft.QGemm") return true;
  }
  return false;
}

QLinearConversionReport convertQLinearToQConv(ir::Graph& graph, RequantForm form) {
  QLinearConversionReport report;
  report.form = form;
  report.signed_values = SignedActivations(graph).run();
  passes::inferShapes(graph);
  LayerConversion(graph, report).run();
  graph.removeUnusedValues();
  passes::inferShapes(graph);
  ir::verifyGraphOrThrow(graph, ir::VerifyOptions{true});
  return report;
}

}  // namespace vdla::quant
