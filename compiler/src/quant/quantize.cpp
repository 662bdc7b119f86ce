// The quantisation pass. It walks the fp32 graph once in topological order
// and keeps, for every original f32 value, its int8 form (value and scale)
// and/or its fp32 form. Each node is either
//   * replaced by integer nodes inserted before it (Conv, Conv + Add, Gemm,
//     GlobalAveragePool, and the scale-preserving MaxPool/Flatten/...), which
//     read the int8 forms of its inputs, or
//   * kept in fp32, reading the fp32 forms of its inputs.
// Forms are made on demand: a QuantizeLinear (scale from calibration) for an
// int8 form of a value that only exists in fp32, a DequantizeLinear for the
// reverse, each once per value and placed before its first reader. At the
// end f32 graph outputs get their fp32 form (under their original names),
// the replaced nodes are removed and the graph is re-sorted and re-typed.
#include "vdla/compiler/quant/quantize.h"

#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "../ops/shape_helpers.h"
#include "../passes/pass_utils.h"
#include "qconv_builder.h"
#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/passes/shape_inference.h"

namespace vdla::quant {

namespace {

namespace pd = passes::detail;

bool isOp(const ir::Node* n, const char* op) { return n && n->domain().empty() && n->op() == op; }

bool isF32(const ir::Value* v) { return v && v->hasType() && v->type().dtype == rt::DType::F32; }

detail::FusedActivation activationOf(const ir::Node& n) {
  detail::FusedActivation a;
  const std::string kind = n.attrs().getString("activation", "");
  if (kind == "Relu") a.kind = detail::FusedActivation::Relu;
  if (kind == "Clip") {
    a.kind = detail::FusedActivation::Clip;
    a.min = n.attrs().getFloat("activation_min", -std::numeric_limits<double>::infinity());
    a.max = n.attrs().getFloat("activation_max", std::numeric_limits<double>::infinity());
  }
  return a;
}

// A 2-D fp32 Conv with constant weights (and bias): what vdla.QConv can run.
std::optional<detail::FloatConv> floatConvOf(const ir::Node& n) {
  if (!isOp(&n, "Conv") || !isF32(n.input(0)) || n.input(0)->type().shape.size() != 4) return std::nullopt;
  const rt::Tensor* w = pd::constantOf(n.input(1));
  if (!w || w->dtype() != rt::DType::F32 || w->rank() != 4) return std::nullopt;
  detail::FloatConv c;
  c.weights = *w;
  if (n.input(2)) {
    const rt::Tensor* b = pd::constantOf(n.input(2));
    if (!b || b->numElements() != w->dim(0)) return std::nullopt;
    c.bias = pd::toDoubles(*b);
  }
  // inferWindow resolves auto_pad into explicit pads, as type inference does.
  const rt::Shape& x = n.input(0)->type().shape;
  ir::WindowGeometry g = ir::inferWindow(n.attrs(), rt::Shape(x.begin() + 2, x.end()), {w->dim(2), w->dim(3)}, false);
  c.geometry.stride[0] = g.strides[0];
  c.geometry.stride[1] = g.strides[1];
  c.geometry.dilation[0] = g.dilations[0];
  c.geometry.dilation[1] = g.dilations[1];
  c.geometry.pads[0] = g.pads_begin[0];
  c.geometry.pads[1] = g.pads_begin[1];
  c.geometry.pads[2] = g.pads_end[0];
  c.geometry.pads[3] = g.pads_end[1];
  c.geometry.group = n.attrs().getInt("group", 1);
  c.activation = activationOf(n);
  return c;
}

// Gemm(A[N,K], B constant, C constant?) or MatMul(A[N,K], B[K,O] constant) as
// a 1x1 convolution over [N, K, 1, 1].
std::optional<detail::FloatConv> denseConvOf(const ir::Node& n) {
  if (!(isOp(&n, "Gemm") || isOp(&n, "MatMul")) || !isF32(n.input(0)) || n.input(0)->type().shape.size() != 2)
    return std::nullopt;
  if (n.attrs().getInt("transA", 0) != 0) return std::nullopt;
  const rt::Tensor* b = pd::constantOf(n.input(1));
  if (!b || b->dtype() != rt::DType::F32 || b->rank() != 2) return std::nullopt;
  const bool trans_b = n.attrs().getInt("transB", 0) != 0;
  const int64_t k = n.input(0)->type().shape[1], o = trans_b ? b->dim(0) : b->dim(1);
  if ((trans_b ? b->dim(1) : b->dim(0)) != k) return std::nullopt;
  const double alpha = n.attrs().getFloat("alpha", 1.0), beta = n.attrs().getFloat("beta", 1.0);
  detail::FloatConv c;
  c.weights = rt::Tensor(rt::DType::F32, {o, k, 1, 1});
  const float* src = b->data<float>();
  float* dst = c.weights.data<float>();
  for (int64_t oi = 0; oi < o; ++oi)
    for (int64_t ki = 0; ki < k; ++ki)
      dst[oi * k + ki] = static_cast<float>(alpha * (trans_b ? src[oi * k + ki] : src[ki * o + oi]));
  if (n.input(2)) {  // Gemm's C, broadcast along the rows
    const rt::Tensor* bias = pd::constantOf(n.input(2));
    if (!bias || (bias->numElements() != o && bias->numElements() != 1)) return std::nullopt;
    std::vector<double> v = pd::toDoubles(*bias);
    for (double& x : v) x *= beta;
    if (v.size() == 1) v.assign(static_cast<size_t>(o), v[0]);
    c.bias = v;
  }
  c.activation = activationOf(n);
  return c;
}

// Operators that run on the int8 tensor unchanged (same scale): they move or
// select elements, or (Relu) commute with a symmetric quantisation.
bool keepsScale(const ir::Node& n) {
  if (!n.domain().empty()) return false;
  const std::string& op = n.op();
  if (op == "MaxPool") return n.numOutputs() == 1;
  return op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" || op == "Identity" || op == "Relu";
}

class Quantizer {
 public:
  Quantizer(ir::Graph& graph, const CalibrationTable& table, const QuantizeOptions& options)
      : g_(graph), table_(table), options_(options) {}

  QuantizeReport run() {
    for (ir::Value* in : g_.inputs())
      if (isF32(in)) forms_[in].f32 = in;
    if (options_.fuse_residual_add) planResidualFusion();
    for (ir::Node* node : g_.nodes()) {
      cursor_ = node;
      if (fused_convs_.count(node)) {
        replaced_.push_back(node);  // emitted with its Add
        continue;
      }
      if (!rewrite(*node)) keepInFloat(*node);
    }
    finishOutputs();
    for (auto it = replaced_.rbegin(); it != replaced_.rend(); ++it) g_.removeNode(*it);
    g_.topologicalSort();
    passes::inferShapes(g_);
    ir::verifyGraphOrThrow(g_);
    return std::move(report_);
  }

 private:
  struct Forms {
    ir::Value* f32 = nullptr;
    ir::Value* i8 = nullptr;
    double scale = 0;
  };

  // An Add whose operand is a Conv's only use becomes that Conv's residual.
  void planResidualFusion() {
    for (ir::Node* add : g_.nodes()) {
      if (!isOp(add, "Add") || add->numInputs() != 2 || add->input(0) == add->input(1)) continue;
      const std::string act = add->attrs().getString("activation", "");
      if (!act.empty() && act != "Relu") continue;
      const ir::Value* out = add->output(0);
      if (!isF32(out) || out->type().shape.size() != 4) continue;
      for (size_t side = 0; side < 2; ++side) {
        ir::Value* v = add->input(side);
        ir::Value* other = add->input(1 - side);
        ir::Node* conv = v->producer();
        if (!isOp(conv, "Conv") || conv->attrs().has("activation") || fused_convs_.count(conv)) continue;
        if (!pd::hasSingleUse(g_, v) || !floatConvOf(*conv)) continue;
        if (!isF32(other) || other->type().shape != out->type().shape || v->type().shape != out->type().shape) continue;
        residual_plan_[add] = {conv, other};
        fused_convs_.insert(conv);
        break;
      }
    }
  }

  double scaleOf(const ir::Value* v) const {
    const TensorStats* s = table_.find(v->name());
    if (!s) throw std::invalid_argument("quantisation: no calibration statistics for value '" + v->name() + "'");
    const double t = options_.threshold == Threshold::MaxAbs ? s->maxAbs() : s->percentile(options_.percentile);
    return t > 0 ? t / 127.0 : 1.0;  // an all-zero value quantises to 0 whatever the scale
  }

  ir::Value* scalarF32(const std::string& name, double v) {
    return g_.addConstant(g_.uniqueName(name), rt::Tensor::scalar<float>(static_cast<float>(v)));
  }
  ir::Value* zeroPointI8(const std::string& name) {
    return g_.addConstant(g_.uniqueName(name), rt::Tensor::scalar<int8_t>(0));
  }

  // New node before the current one (or at the end when there is none), typed.
  ir::Node* emit(const std::string& op, const std::vector<ir::Value*>& inputs, const std::string& name,
                 rt::AttributeMap attrs = {}, const std::string& domain = "") {
    const std::string unique = g_.uniqueName(name);
    ir::Node* n = cursor_ ? g_.insertNodeBefore(cursor_, op, inputs, 1, std::move(attrs), unique, domain)
                          : g_.addNode(op, inputs, 1, std::move(attrs), unique, domain);
    pd::inferNodeTypes(*n);
    return n;
  }

  void setInt8(const ir::Value* original, ir::Value* i8, double scale) {
    Forms& f = forms_[original];
    f.i8 = i8;
    f.scale = scale;
    report_.values.push_back({original->name(), i8->name(), scale});
  }

  bool hasInt8(const ir::Value* v) const {
    auto it = forms_.find(v);
    return it != forms_.end() && it->second.i8;
  }

  // The int8 form of an original f32 value, quantising its fp32 form if needed.
  ir::Value* int8Of(ir::Value* v) {
    Forms& f = forms_[v];
    if (f.i8) return f.i8;
    if (!f.f32) throw std::logic_error("quantisation: value '" + v->name() + "' has no form yet");
    const double scale = scaleOf(v);
    ir::Node* q =
        emit("QuantizeLinear", {f.f32, scalarF32(v->name() + ".scale", scale), zeroPointI8(v->name() + ".zero_point")},
             v->name() + ".quantize");
    setInt8(v, q->output(0), scale);
    return q->output(0);
  }

  // The fp32 form of an original value, dequantising its int8 form if needed.
  ir::Value* floatOf(ir::Value* v) {
    Forms& f = forms_[v];
    if (f.f32) return f.f32;
    if (!f.i8) throw std::logic_error("quantisation: value '" + v->name() + "' has no form yet");
    ir::Node* dq = emit("DequantizeLinear",
                        {f.i8, scalarF32(v->name() + ".scale", f.scale), zeroPointI8(v->name() + ".zero_point")},
                        v->name() + ".dequantize");
    forms_[v].f32 = dq->output(0);
    return dq->output(0);
  }

  // Emits a vdla.QConv reading x (an original value), with an optional residual.
  ir::Value* emitQConv(const detail::FloatConv& conv, ir::Value* x_int8, double x_scale, const ir::Value* y,
                       ir::Value* residual, const std::string& name, double* y_scale) {
    *y_scale = scaleOf(y);
    std::optional<double> r_scale;
    ir::Value* r_int8 = nullptr;
    if (residual) {
      r_int8 = int8Of(residual);
      r_scale = forms_[residual].scale;
    }
    detail::QConvConstants c = detail::buildQConv(conv, x_scale, *y_scale, r_scale, "layer '" + name + "'");
    std::vector<ir::Value*> inputs = {x_int8, g_.addConstant(g_.uniqueName(name + ".weight_i8"), c.weights),
                                      g_.addConstant(g_.uniqueName(name + ".bias1"), c.bias1),
                                      g_.addConstant(g_.uniqueName(name + ".mult"), c.mult),
                                      g_.addConstant(g_.uniqueName(name + ".bias2"), c.bias2)};
    if (residual) {
      inputs.push_back(r_int8);
      inputs.push_back(g_.addConstant(g_.uniqueName(name + ".residual_mult"), c.residual_mult));
    }
    rt::AttributeMap attrs;
    rt::writeQConvAttributes(c.attrs, attrs);
    ir::Node* q = emit("QConv", inputs, name + ".qconv", std::move(attrs), "vdla");
    int bits = 0;
    for (int32_t m : c.requant.mult) bits = std::max(bits, m > 0 ? static_cast<int>(std::floor(std::log2(m))) + 1 : 0);
    report_.layers.push_back(
        {q->name(), c.requant.shift1, c.requant.shift2, bits, c.requant.error_bound, residual != nullptr});
    return q->output(0);
  }

  bool rewrite(ir::Node& n) {
    if (auto plan = residual_plan_.find(&n); plan != residual_plan_.end()) {
      ir::Node* conv = plan->second.conv;
      detail::FloatConv fc = *floatConvOf(*conv);
      fc.activation = activationOf(n);  // the Add's Relu ends the fused sequence
      ir::Value* x = conv->input(0);
      ir::Value* x_int8 = int8Of(x);
      double y_scale = 0;
      ir::Value* y = emitQConv(fc, x_int8, forms_[x].scale, n.output(0), plan->second.other, conv->name(), &y_scale);
      setInt8(n.output(0), y, y_scale);
      replaced_.push_back(&n);
      return true;
    }
    if (std::optional<detail::FloatConv> fc = floatConvOf(n)) {
      ir::Value* x = n.input(0);
      ir::Value* x_int8 = int8Of(x);
      double y_scale = 0;
      ir::Value* y = emitQConv(*fc, x_int8, forms_[x].scale, n.output(0), nullptr, n.name(), &y_scale);
      setInt8(n.output(0), y, y_scale);
      replaced_.push_back(&n);
      return true;
    }
    if (std::optional<detail::FloatConv> fc = denseConvOf(n)) {
      ir::Value* a = n.input(0);
      const rt::Shape& as = a->type().shape;
      const int64_t o = fc->weights.dim(0);
      ir::Value* a_int8 = int8Of(a);
      ir::Node* to4d =
          emit("Reshape", {a_int8, shapeConstant(n.name() + ".shape_in", {as[0], as[1], 1, 1})}, n.name() + ".to_nchw");
      double y_scale = 0;
      ir::Value* y = emitQConv(*fc, to4d->output(0), forms_[a].scale, n.output(0), nullptr, n.name(), &y_scale);
      ir::Node* to2d = emit("Reshape", {y, shapeConstant(n.name() + ".shape_out", {as[0], o})}, n.name() + ".to_nc");
      setInt8(n.output(0), to2d->output(0), y_scale);
      replaced_.push_back(&n);
      return true;
    }
    if (isOp(&n, "GlobalAveragePool") && hasInt8(n.input(0)) && n.input(0)->type().shape.size() >= 3) {
      ir::Value* x = n.input(0);
      const double x_scale = forms_[x].scale, y_scale = scaleOf(n.output(0));
      ir::Node* q = emit("QLinearGlobalAveragePool",
                         {int8Of(x), scalarF32(n.name() + ".x_scale", x_scale), zeroPointI8(n.name() + ".x_zero_point"),
                          scalarF32(n.name() + ".y_scale", y_scale), zeroPointI8(n.name() + ".y_zero_point")},
                         n.name() + ".qlinear", {}, "com.microsoft");
      setInt8(n.output(0), q->output(0), y_scale);
      replaced_.push_back(&n);
      return true;
    }
    if (keepsScale(n) && hasInt8(n.input(0)) && isF32(n.output(0))) {
      ir::Value* x = n.input(0);
      std::vector<ir::Value*> inputs = n.inputs();
      inputs[0] = int8Of(x);
      ir::Node* q = emit(n.op(), inputs, n.name() + ".i8", n.attrs());
      setInt8(n.output(0), q->output(0), forms_[x].scale);
      replaced_.push_back(&n);
      return true;
    }
    return false;
  }

  ir::Value* shapeConstant(const std::string& name, const std::vector<int64_t>& dims) {
    return g_.addConstant(g_.uniqueName(name),
                          rt::Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims));
  }

  // The node stays in fp32: its inputs read fp32 forms, its outputs are fp32.
  void keepInFloat(ir::Node& n) {
    for (size_t i = 0; i < n.numInputs(); ++i) {
      ir::Value* v = n.input(i);
      if (v && forms_.count(v)) n.setInput(i, floatOf(v));
    }
    for (ir::Value* out : n.outputs())
      if (isF32(out)) forms_[out].f32 = out;
    report_.float_nodes.push_back(n.name());
  }

  // f32 graph outputs computed in int8 are dequantised under their names.
  void finishOutputs() {
    cursor_ = nullptr;
    for (size_t i = 0; i < g_.outputs().size(); ++i) {
      ir::Value* v = g_.outputs()[i];
      auto it = forms_.find(v);
      if (it == forms_.end() || it->second.f32 == v) continue;
      pd::replaceValue(g_, v, floatOf(v));
    }
  }

  struct ResidualPlan {
    ir::Node* conv;
    ir::Value* other;
  };

  ir::Graph& g_;
  const CalibrationTable& table_;
  const QuantizeOptions& options_;
  QuantizeReport report_;
  std::unordered_map<const ir::Value*, Forms> forms_;
  std::map<const ir::Node*, ResidualPlan> residual_plan_;
  std::unordered_set<const ir::Node*> fused_convs_;
  std::vector<ir::Node*> replaced_;
  ir::Node* cursor_ = nullptr;
};

}  // namespace

QuantizeReport quantizeGraph(ir::Graph& graph, const CalibrationTable& table, const QuantizeOptions& options) {
  if (options.threshold == Threshold::Percentile && !(options.percentile > 0 && options.percentile <= 1))
    throw std::invalid_argument("quantisation: percentile must be in (0, 1]");
  return Quantizer(graph, table, options).run();
}

}  // namespace vdla::quant
