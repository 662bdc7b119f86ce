#include "vdla/compiler/passes/fuse_gemm.h"

#include "pass_utils.h"

namespace vdla::passes {

namespace {

bool isOp(const ir::Node* node, const char* op) { return node && node->domain().empty() && node->op() == op; }

bool isF32Rank(const ir::Value* v, size_t rank) {
  return v && v->hasType() && v->type().dtype == rt::DType::F32 && v->type().shape.size() == rank;
}

// A constant that broadcasts along the rows of an [M, N] result: shape [], [1], [N] or [1, N].
// Returns it expanded to N values, or nothing.
std::optional<std::vector<double>> rowBias(const ir::Value* v, int64_t n) {
  const rt::Tensor* t = detail::constantOf(v);
  if (!t || t->dtype() != rt::DType::F32) return std::nullopt;
  const rt::Shape& s = t->shape();
  bool ok = (s.empty()) || (s.size() == 1 && (s[0] == 1 || s[0] == n)) ||
            (s.size() == 2 && s[0] == 1 && (s[1] == 1 || s[1] == n));
  if (!ok) return std::nullopt;
  std::vector<double> values = detail::toDoubles(*t);
  if (values.size() == 1) values.assign(static_cast<size_t>(n), values[0]);
  return values;
}

// Gemm(A, B[, C]) + Add(c) -> Gemm(A, B, C + c); MatMul(A, B) + Add(c) -> Gemm(A, B, c).
bool fuseAdd(ir::Graph& graph, ir::Node& add) {
  for (size_t side = 0; side < 2; ++side) {
    ir::Value* mm_out = add.input(side);
    ir::Value* other = add.input(1 - side);
    ir::Node* producer = mm_out ? mm_out->producer() : nullptr;
    bool is_gemm = isOp(producer, "Gemm");
    if (!is_gemm && !isOp(producer, "MatMul")) continue;
    if (!isF32Rank(mm_out, 2) || !detail::hasSingleUse(graph, mm_out)) continue;
    if (!add.output(0)->hasType() || add.output(0)->type() != mm_out->type())
      continue;  // the Add must not broadcast further
    const int64_t n = mm_out->type().shape[1];
    std::optional<std::vector<double>> c = rowBias(other, n);
    if (!c) continue;

    if (is_gemm) {
      if (producer->attrs().has("activation")) continue;
      if (producer->input(2)) {
        std::optional<std::vector<double>> old = rowBias(producer->input(2), n);
        if (!old) continue;
        double beta = producer->attrs().getFloat("beta", 1.0);
        for (size_t i = 0; i < c->size(); ++i) (*c)[i] += beta * (*old)[i];
      }
      ir::Value* bias =
          graph.addConstant(graph.uniqueName(producer->name() + ".bias_fused"), detail::floatTensor(*c, {n}));
      producer->setInput(2, bias);
      producer->attrs().set("beta", 1.0);
      detail::replaceValue(graph, add.output(0), mm_out);
      graph.removeNode(&add);
      return true;
    }
    // MatMul: Gemm needs both operands 2-D and the weight constant.
    ir::Value* a = producer->input(0);
    ir::Value* b = producer->input(1);
    if (!isF32Rank(a, 2) || !detail::constantOf(b) || !isF32Rank(b, 2)) continue;
    ir::Value* bias =
        graph.addConstant(graph.uniqueName(producer->name() + ".bias_fused"), detail::floatTensor(*c, {n}));
    ir::Node* gemm =
        graph.insertNodeBefore(&add, "Gemm", {a, b, bias}, 1, {}, graph.uniqueName(producer->name() + "_gemm"));
    detail::inferNodeTypes(*gemm);
    detail::replaceValue(graph, add.output(0), gemm->output(0));
    graph.removeNode(&add);
    graph.removeNode(producer);
    return true;
  }
  return false;
}

// MatMul(A[M,K], B[K,N] constant) -> Gemm(A, B).
bool matMulToGemm(ir::Graph& graph, ir::Node& mm) {
  ir::Value* a = mm.input(0);
  ir::Value* b = mm.input(1);
  if (!isF32Rank(a, 2) || !detail::constantOf(b) || !isF32Rank(b, 2) || !isF32Rank(mm.output(0), 2)) return false;
  ir::Node* gemm = graph.insertNodeBefore(&mm, "Gemm", {a, b}, 1, {}, graph.uniqueName(mm.name() + "_gemm"));
  detail::inferNodeTypes(*gemm);
  detail::replaceValue(graph, mm.output(0), gemm->output(0));
  graph.removeNode(&mm);
  return true;
}

}  // namespace

bool fuseGemmBias(ir::Graph& graph) {
  bool changed = false;
  for (ir::Node* node : graph.nodes())
    if (isOp(node, "Add") && node->numInputs() == 2 && !node->attrs().has("activation"))
      changed = fuseAdd(graph, *node) || changed;
  for (ir::Node* node : graph.nodes())
    if (isOp(node, "MatMul")) changed = matMulToGemm(graph, *node) || changed;
  return changed;
}

}  // namespace vdla::passes
