#include "vdla/compiler/passes/batchnorm_folding.h"

#include <cmath>

#include "pass_utils.h"

namespace vdla::passes {

namespace {

struct BnAffine {
  std::vector<double> scale;  // gamma / sqrt(var + eps)
  std::vector<double> shift;  // beta - mean * scale
};

// The per-channel affine form of an inference BN with constant parameters.
std::optional<BnAffine> affineOf(const ir::Graph& graph, const ir::Node& bn) {
  if (bn.numInputs() < 5 || !bn.input(0)) return std::nullopt;
  if (bn.attrs().getInt("training_mode", 0) != 0) return std::nullopt;
  for (size_t i = 1; i < bn.numOutputs(); ++i)  // training outputs (running stats) must be unused
    if (!graph.users(bn.output(i)).empty() || graph.isGraphOutput(bn.output(i))) return std::nullopt;
  std::vector<std::vector<double>> p;
  for (size_t i = 1; i <= 4; ++i) {
    const rt::Tensor* t = detail::constantOf(bn.input(i));
    if (!t || t->dtype() != rt::DType::F32) return std::nullopt;
    p.push_back(detail::toDoubles(*t));
  }
  size_t channels = p[0].size();
  for (const auto& v : p)
    if (v.size() != channels) return std::nullopt;
  double eps = bn.attrs().getFloat("epsilon", 1e-5);
  BnAffine a;
  a.scale.resize(channels);
  a.shift.resize(channels);
  for (size_t c = 0; c < channels; ++c) {
    // Computed in double: the folded float weights then round once.
    a.scale[c] = p[0][c] / std::sqrt(p[3][c] + eps);
    a.shift[c] = p[1][c] - p[2][c] * a.scale[c];
  }
  return a;
}

// Folds the BN into the Conv producing its input, when that is valid.
bool foldIntoConv(ir::Graph& graph, ir::Node& bn, const BnAffine& a) {
  ir::Value* x = bn.input(0);
  ir::Node* conv = x->producer();
  if (!conv || conv->op() != "Conv" || !conv->domain().empty() || conv->attrs().has("activation")) return false;
  if (!detail::hasSingleUse(graph, x)) return false;
  const rt::Tensor* w = detail::constantOf(conv->input(1));
  if (!w || w->dtype() != rt::DType::F32 || w->rank() < 3) return false;
  const size_t channels = a.scale.size();
  if (w->dim(0) != static_cast<int64_t>(channels)) return false;
  const rt::Tensor* b = nullptr;
  if (conv->input(2)) {
    b = detail::constantOf(conv->input(2));
    if (!b || b->dtype() != rt::DType::F32 || b->numElements() != static_cast<int64_t>(channels)) return false;
  }

  rt::Tensor new_w(w->type());
  const int64_t per_channel = w->numElements() / static_cast<int64_t>(channels);
  const float* wp = w->data<float>();
  float* nwp = new_w.data<float>();
  for (size_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < per_channel; ++i) {
      size_t k = c * static_cast<size_t>(per_channel) + static_cast<size_t>(i);
      nwp[k] = static_cast<float>(static_cast<double>(wp[k]) * a.scale[c]);
    }
  std::vector<double> bias(channels, 0.0);
  if (b) bias = detail::toDoubles(*b);
  for (size_t c = 0; c < channels; ++c) bias[c] = bias[c] * a.scale[c] + a.shift[c];

  const std::string base = conv->name();
  ir::Value* wv = graph.addConstant(graph.uniqueName(base + ".weight_folded"), std::move(new_w));
  ir::Value* bv = graph.addConstant(graph.uniqueName(base + ".bias_folded"),
                                    detail::floatTensor(bias, {static_cast<int64_t>(channels)}));
  conv->setInput(1, wv);
  conv->setInput(2, bv);
  detail::replaceValue(graph, bn.output(0), x);
  graph.removeNode(&bn);  // also drops the BN's and the Conv's old constants when unused
  return true;
}

// x * scale + shift with the parameters shaped [C, 1, ...] to broadcast over axis 1.
bool decompose(ir::Graph& graph, ir::Node& bn, const BnAffine& a) {
  ir::Value* x = bn.input(0);
  if (!x->hasType() || x->type().dtype != rt::DType::F32) return false;
  const rt::Shape& shape = x->type().shape;
  const int64_t channels = static_cast<int64_t>(a.scale.size());
  if (shape.size() < 2 || shape[1] != channels) return false;
  rt::Shape param_shape(shape.size() - 1, 1);
  param_shape[0] = channels;
  ir::Value* sv =
      graph.addConstant(graph.uniqueName(bn.name() + ".scale_folded"), detail::floatTensor(a.scale, param_shape));
  ir::Value* tv =
      graph.addConstant(graph.uniqueName(bn.name() + ".shift_folded"), detail::floatTensor(a.shift, param_shape));
  ir::Node* mul = graph.insertNodeBefore(&bn, "Mul", {x, sv}, 1, {}, graph.uniqueName(bn.name() + "_mul"));
  detail::inferNodeTypes(*mul);
  ir::Node* add = graph.insertNodeBefore(&bn, "Add", {mul->output(), tv}, 1, {}, graph.uniqueName(bn.name() + "_add"));
  detail::inferNodeTypes(*add);
  detail::replaceValue(graph, bn.output(0), add->output());
  graph.removeNode(&bn);
  return true;
}

}  // namespace

bool foldBatchNorms(ir::Graph& graph, const BatchNormFoldingOptions& options) {
  bool changed = false;
  for (ir::Node* node : graph.nodes()) {
    if (node->op() != "BatchNormalization" || !node->domain().empty()) continue;
    std::optional<BnAffine> a = affineOf(graph, *node);
    if (!a) continue;
    if (foldIntoConv(graph, *node, *a)) {
      changed = true;
    } else if (options.decompose_standalone && decompose(graph, *node, *a)) {
      changed = true;
    }
  }
  return changed;
}

}  // namespace vdla::passes
