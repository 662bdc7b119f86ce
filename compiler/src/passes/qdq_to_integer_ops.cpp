// QDQ groups -> integer operators, following onnxruntime's QDQ selectors and
// actions (onnxruntime/core/optimizer/qdq_transformer/selectors_actions/
// qdq_selectors.cc, qdq_selector_action_transformer.cc, qdq_actions.cc),
// EnsureUniqueDQForNodeUnit and WeightBiasQuantization (bias part).
#include "vdla/compiler/passes/qdq_to_integer_ops.h"

#include <cmath>
#include <optional>
#include <set>

#include "pass_utils.h"

namespace vdla::passes {

namespace {

using ir::DType;
using ir::Graph;
using ir::Node;
using ir::Value;

bool isQuantType(DType t) { return t == DType::U8 || t == DType::I8; }

// The parameters of a DequantizeLinear or QuantizeLinear with constant scale
// and zero point (the zero point may be absent).
struct QuantParams {
  Node* node = nullptr;
  Value* data = nullptr;  // DQ: its quantised input; Q: its quantised output
  Value* scale = nullptr;
  Value* zero_point = nullptr;
  DType qtype = DType::U8;  // the quantised type
  bool per_tensor = true;
  int64_t axis = 1;  // normalised, for per-axis parameters
  int64_t channels = 1;

  // Slots for a QLinear* operator: data, scale, zero point.
  std::vector<Value*> slots() const { return {data, scale, zero_point}; }
};

bool readParams(Node* node, QuantParams& p) {
  if (!node->domain().empty() || node->attrs().getInt("block_size", 0) != 0) return false;
  p.node = node;
  p.scale = node->input(1);
  p.zero_point = node->input(2);
  if (!p.scale || !p.scale->isConstant() || (p.zero_point && !p.zero_point->isConstant())) return false;
  const rt::Tensor& s = p.scale->constant();
  if (s.dtype() != DType::F32) return false;
  p.per_tensor = s.numElements() == 1 && s.rank() <= 1;
  p.channels = s.numElements();
  if (!p.per_tensor) {
    if (s.rank() != 1 || !node->input(0)->hasType()) return false;
    const int64_t rank = static_cast<int64_t>(node->input(0)->type().shape.size());
    int64_t axis = node->attrs().getInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    p.axis = axis;
  }
  return true;
}

// The DequantizeLinear producing v, when v is one with constant parameters.
std::optional<QuantParams> dequantizerOf(const Value* v) {
  if (!v || !v->producer()) return std::nullopt;
  Node* dq = v->producer();
  if (dq->op() != "DequantizeLinear") return std::nullopt;
  QuantParams p;
  if (!readParams(dq, p)) return std::nullopt;
  p.data = dq->input(0);
  if (!p.data->hasType()) return std::nullopt;
  p.qtype = p.data->type().dtype;
  if (p.zero_point && (!p.zero_point->hasType() || p.zero_point->type().dtype != p.qtype)) return std::nullopt;
  return p;
}

// The QuantizeLinear nodes reading the target's (single) output.
std::vector<Node*> quantizeReaders(const Graph& graph, const Node* target) {
  std::vector<Node*> qs;
  for (Node* user : graph.users(target->output(0)))
    if (user->op() == "QuantizeLinear" && user->domain().empty()) qs.push_back(user);
  return qs;
}

// onnxruntime's CheckQDQNodes for the output side: the target has one output,
// read only by one QuantizeLinear (its input 0) and not a graph output.
std::optional<QuantParams> soleQuantizer(const Graph& graph, const Node* target) {
  if (target->numOutputs() != 1) return std::nullopt;
  const Value* y = target->output(0);
  if (graph.isGraphOutput(y)) return std::nullopt;
  const std::vector<Node*> users = graph.users(y);
  if (users.size() != 1) return std::nullopt;
  Node* q = users[0];
  if (q->op() != "QuantizeLinear" || q->input(0) != y) return std::nullopt;
  QuantParams p;
  if (!readParams(q, p) || !p.per_tensor) return std::nullopt;
  p.data = q->output(0);
  if (!p.data->hasType() || !isQuantType(p.data->type().dtype)) return std::nullopt;
  p.qtype = p.data->type().dtype;
  return p;
}

// Scale and zero point of a per-tensor DQ/Q as floats/ints, for comparisons.
bool sameScalarParams(const QuantParams& a, const QuantParams& b) {
  if (!a.per_tensor || !b.per_tensor || a.qtype != b.qtype) return false;
  if (a.scale->constant().getAsDouble(0) != b.scale->constant().getAsDouble(0)) return false;
  const double za = a.zero_point ? a.zero_point->constant().getAsDouble(0) : 0.0;
  const double zb = b.zero_point ? b.zero_point->constant().getAsDouble(0) : 0.0;
  return za == zb;
}

// Weight parameters: per tensor, or per output channel along `axis` with
// `channels` entries.
bool weightParamsFit(const QuantParams& w, int64_t axis, int64_t channels) {
  return w.per_tensor || (w.axis == axis && w.channels == channels);
}

// The int32 bias: the input of an int32 DQ as is (onnxruntime moves the DQ's
// input 0 and ignores its scale), or a constant 1-D f32 bias quantised with
// scale x_scale * w_scale[c], as onnxruntime's WeightBiasQuantization does
// (Mul, Div, Round (half to even) and Cast, all in float32). nullptr with
// *ok = false when the bias does not fit.
Value* integerBias(Graph& graph, const Value* bias, const QuantParams& x, const QuantParams& w, int64_t channels,
                   const std::string& name, bool* ok) {
  *ok = true;
  if (!bias) return nullptr;
  if (auto dq = dequantizerOf(bias)) {
    if (dq->qtype != DType::I32) *ok = false;
    return dq->data;
  }
  const rt::Tensor* b = detail::constantOf(bias);
  if (!b || b->dtype() != DType::F32 || b->rank() != 1 || b->numElements() != channels || !x.per_tensor ||
      (!w.per_tensor && w.channels != channels)) {
    *ok = false;
    return nullptr;
  }
  const float x_scale = x.scale->constant().data<float>()[0];
  const float* w_scale = w.scale->constant().data<float>();
  rt::Tensor q(DType::I32, {channels});
  for (int64_t c = 0; c < channels; ++c) {
    const float scale = x_scale * w_scale[w.per_tensor ? 0 : c];
    const float v = std::nearbyint(b->data<float>()[c] / scale);
    q.data<int32_t>()[c] = static_cast<int32_t>(v);
  }
  return graph.addConstant(graph.uniqueName(name + "_bias_int32"), std::move(q));
}

// Replaces target and its Q (if any) by `replacement`: readers of the Q's
// output (or of the target's output) read the replacement's output. DQs left
// without readers are removed.
void finishRewrite(Graph& graph, Node* target, Node* replacement, const std::optional<QuantParams>& q,
                   const std::vector<Node*>& dqs) {
  detail::inferNodeTypes(*replacement);
  Value* old_out = q ? q->data : target->output(0);
  detail::replaceValue(graph, old_out, replacement->output(0));
  if (q) graph.removeNode(q->node);
  graph.removeNode(target);
  std::set<Node*> seen;
  for (Node* dq : dqs) {
    if (!dq || !seen.insert(dq).second) continue;
    if (graph.users(dq->output(0)).empty() && !graph.isGraphOutput(dq->output(0))) graph.removeNode(dq);
  }
}

Node* insertReplacement(Graph& graph, Node* target, const std::string& op, std::vector<Value*> inputs,
                        rt::AttributeMap attrs, const std::string& domain) {
  while (!inputs.empty() && !inputs.back()) inputs.pop_back();
  return graph.insertNodeBefore(target, op, inputs, 1, std::move(attrs), graph.uniqueName(target->name() + "_quant"),
                                domain);
}

void append(std::vector<Value*>& v, const std::vector<Value*>& more) { v.insert(v.end(), more.begin(), more.end()); }

// ConvSelector + ConvReplaceWithQLinear.
bool rewriteConv(Graph& graph, Node* conv) {
  if (!conv->domain().empty() || conv->numInputs() < 2 || conv->attrs().has("activation")) return false;
  auto x = dequantizerOf(conv->input(0));
  auto w = dequantizerOf(conv->input(1));
  auto q = soleQuantizer(graph, conv);
  if (!x || !w || !q || !x->per_tensor || !isQuantType(x->qtype) || !isQuantType(w->qtype)) return false;
  if (x->qtype != q->qtype) return false;
  if (x->qtype == DType::I8 && w->qtype != DType::I8) return false;
  if (!w->data->hasType() || w->data->type().shape.empty()) return false;
  const int64_t channels = w->data->type().shape[0];
  if (!weightParamsFit(*w, 0, channels)) return false;
  bool bias_ok = true;
  Value* bias = integerBias(graph, conv->input(2), *x, *w, channels, conv->name(), &bias_ok);
  if (!bias_ok) return false;
  std::vector<Value*> inputs = x->slots();
  append(inputs, w->slots());
  inputs.push_back(q->scale);
  inputs.push_back(q->zero_point);
  if (bias) inputs.push_back(bias);
  rt::AttributeMap attrs = conv->attrs();
  Node* qconv = insertReplacement(graph, conv, "QLinearConv", inputs, attrs, "");
  Node* bias_dq = conv->input(2) ? conv->input(2)->producer() : nullptr;
  finishRewrite(graph, conv, qconv, q, {x->node, w->node, bias_dq});
  return true;
}

// GemmSelector + GemmReplaceWithQuant: QGemm, quantised output with a Q,
// float output when no Q reads the Gemm.
bool rewriteGemm(Graph& graph, Node* gemm) {
  if (!gemm->domain().empty() || gemm->numInputs() < 2 || gemm->attrs().has("activation")) return false;
  auto a = dequantizerOf(gemm->input(0));
  auto b = dequantizerOf(gemm->input(1));
  if (!a || !b || !a->per_tensor || !isQuantType(a->qtype) || !isQuantType(b->qtype)) return false;
  if (a->qtype == DType::I8 && b->qtype != DType::I8) return false;
  std::optional<QuantParams> q;
  if (!quantizeReaders(graph, gemm).empty()) {
    q = soleQuantizer(graph, gemm);
    if (!q || q->qtype != a->qtype) return false;
  }
  const ir::Shape& bshape = b->data->type().shape;
  if (bshape.size() != 2) return false;
  const bool trans_b = gemm->attrs().getInt("transB", 0) != 0;
  const int64_t n = trans_b ? bshape[0] : bshape[1];
  if (!weightParamsFit(*b, trans_b ? 0 : 1, n)) return false;
  Value* c = gemm->input(2);
  Value* bias = nullptr;
  if (c) {
    if (gemm->attrs().getFloat("beta", 1.0) != 1.0) return false;
    // A float bias is quantised only on a path to a Q (WeightBiasQuantization).
    if (!q && !dequantizerOf(c)) return false;
    bool bias_ok = true;
    bias = integerBias(graph, c, *a, *b, n, gemm->name(), &bias_ok);
    if (!bias_ok) return false;
  }
  std::vector<Value*> inputs = a->slots();
  append(inputs, b->slots());
  inputs.push_back(bias);
  if (q) {
    inputs.push_back(q->scale);
    inputs.push_back(q->zero_point);
  }
  rt::AttributeMap attrs;
  attrs.set("alpha", gemm->attrs().getFloat("alpha", 1.0));
  attrs.set("transA", gemm->attrs().getInt("transA", 0));
  attrs.set("transB", gemm->attrs().getInt("transB", 0));
  Node* qgemm = insertReplacement(graph, gemm, "QGemm", inputs, attrs, "com.microsoft");
  Node* bias_dq = c ? c->producer() : nullptr;
  finishRewrite(graph, gemm, qgemm, q, {a->node, b->node, bias_dq});
  return true;
}

// BinarySelector + BinaryReplaceWithQLinear (Add, Mul).
bool rewriteBinary(Graph& graph, Node* node) {
  if (!node->domain().empty() || node->numInputs() != 2 || node->attrs().has("activation")) return false;
  auto a = dequantizerOf(node->input(0));
  auto b = dequantizerOf(node->input(1));
  auto q = soleQuantizer(graph, node);
  if (!a || !b || !q || !a->per_tensor || !b->per_tensor) return false;
  if (!isQuantType(a->qtype) || a->qtype != b->qtype || a->qtype != q->qtype) return false;
  std::vector<Value*> inputs = a->slots();
  append(inputs, b->slots());
  inputs.push_back(q->scale);
  inputs.push_back(q->zero_point);
  Node* r = insertReplacement(graph, node, "QLinear" + node->op(), inputs, {}, "com.microsoft");
  finishRewrite(graph, node, r, q, {a->node, b->node});
  return true;
}

// UnarySelector + UnaryReplaceWithQLinear (GlobalAveragePool).
bool rewriteUnary(Graph& graph, Node* node) {
  if (!node->domain().empty() || node->numInputs() != 1) return false;
  auto x = dequantizerOf(node->input(0));
  auto q = soleQuantizer(graph, node);
  if (!x || !q || !x->per_tensor || !isQuantType(x->qtype) || x->qtype != q->qtype) return false;
  std::vector<Value*> inputs = x->slots();
  inputs.push_back(q->scale);
  inputs.push_back(q->zero_point);
  rt::AttributeMap attrs;
  attrs.set("channels_last", int64_t{0});
  Node* r = insertReplacement(graph, node, "QLinear" + node->op(), inputs, attrs, "com.microsoft");
  finishRewrite(graph, node, r, q, {x->node});
  return true;
}

// DropQDQNodesSelector + MergeIntoTargetFixed: the op runs on the integers when
// its only DQ input and its Q carry the same scale and zero point.
bool dropQdq(Graph& graph, Node* node, bool needs_positive_scale) {
  if (!node->domain().empty() || node->numOutputs() != 1 || !node->input(0)) return false;
  auto x = dequantizerOf(node->input(0));
  auto q = soleQuantizer(graph, node);
  if (!x || !q || !isQuantType(x->qtype) || !sameScalarParams(*x, *q)) return false;
  for (size_t i = 1; i < node->numInputs(); ++i)
    if (dequantizerOf(node->input(i))) return false;  // exactly one DQ input
  if (needs_positive_scale && !(q->scale->constant().getAsDouble(0) > 0)) return false;
  Value* float_in = node->input(0);
  Value* float_out = node->output(0);
  const ir::TensorType float_type = float_out->type();
  node->setInput(0, x->data);
  try {
    detail::inferNodeTypes(*node);
  } catch (const std::exception&) {  // the op has no integer form here: leave the group
    node->setInput(0, float_in);
    float_out->setType(float_type);
    return false;
  }
  detail::replaceValue(graph, q->data, float_out);
  graph.removeNode(q->node);
  if (graph.users(x->node->output(0)).empty() && !graph.isGraphOutput(x->node->output(0))) graph.removeNode(x->node);
  return true;
}

bool rewriteNode(Graph& graph, Node* node) {
  if (!node->domain().empty()) return false;
  const std::string& op = node->op();
  if (op == "Conv") return rewriteConv(graph, node);
  if (op == "Gemm") return rewriteGemm(graph, node);
  if (op == "Add" || op == "Mul") return rewriteBinary(graph, node);
  if (op == "GlobalAveragePool") return rewriteUnary(graph, node);
  static const std::set<std::string> kDataMovement = {"Expand", "Flatten", "Gather", "GatherElements", "Reshape",
                                                      "Slice",  "Squeeze", "Tile",   "Transpose",      "Unsqueeze"};
  if (kDataMovement.count(op)) return dropQdq(graph, node, false);
  if (op == "MaxPool" || op == "ReduceMax" || op == "ReduceMin") return dropQdq(graph, node, true);
  return false;
}

}  // namespace

bool rewriteQdqToIntegerOps(ir::Graph& graph) {
  bool has_dq = false;
  for (const Node* node : graph.nodes()) has_dq = has_dq || node->op() == "DequantizeLinear";
  if (!has_dq) return false;  // fp32 graphs are never touched
  bool changed = false;
  for (Node* node : graph.nodes()) {
    // The snapshot may hold nodes a rewrite removed (DQs, Qs): skip those.
    bool alive = false;
    for (const Node* n : graph.nodes()) alive = alive || n == node;
    if (!alive) continue;
    changed |= rewriteNode(graph, node);
  }
  if (changed) graph.removeUnusedValues();
  return changed;
}

}  // namespace vdla::passes
