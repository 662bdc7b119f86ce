#include "lower.h"

#include <map>
#include <stdexcept>
#include <unordered_map>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "step_builder.h"
#include "target.h"
#include "vdla/runtime/native/native_kernels.h"

namespace vdla::cpu {

namespace {

using EmitFn = void (*)(StepBuilder&);

const std::map<std::string, EmitFn>& emitters() {
  static const std::map<std::string, EmitFn> table = {
      {"Conv", emitConv},           {"Gemm", emitGemm},
      {"MatMul", emitMatMul},       {"MaxPool", emitPool},
      {"AveragePool", emitPool},    {"GlobalAveragePool", emitGlobalPool},
      {"GlobalMaxPool", emitGlobalPool},
      {"Relu", emitUnary},          {"Neg", emitUnary},
      {"Abs", emitUnary},           {"Sigmoid", emitUnary},
      {"Tanh", emitUnary},          {"Exp", emitUnary},
      {"Sqrt", emitUnary},          {"Reciprocal", emitUnary},
      {"LeakyRelu", emitUnary},     {"HardSigmoid", emitUnary},
      {"HardSwish", emitUnary},     {"Add", emitBinary},
      {"Sub", emitBinary},          {"Mul", emitBinary},
      {"Div", emitBinary},          {"Clip", emitClip},
      {"Reshape", emitCopy},        {"Flatten", emitCopy},
      {"Squeeze", emitCopy},        {"Unsqueeze", emitCopy},
      {"Identity", emitCopy},       {"Dropout", emitCopy},
      {"Softmax", emitSoftmax},     {"LogSoftmax", emitSoftmax},
      {"Concat", emitConcat},       {"BatchNormalization", emitBatchNorm},
      // int8 (the operators a quantised graph runs on the CPU)
      {"vdla.QConv", emitQConv},    {"QuantizeLinear", emitQuantizeLinear},
      {"DequantizeLinear", emitDequantizeLinear},
      {"com.microsoft.QLinearAdd", emitQLinearAdd},
      {"com.microsoft.QLinearGlobalAveragePool", emitQLinearGlobalAveragePool},
  };
  return table;
}

// The Add that a Conv's output feeds, when it can become the Conv's
// epilogue: its only reader, f32, the other operand of the same shape and
// already computed when the Conv runs.
const ir::Node* residualAdd(const ir::Graph& graph, const ir::Node* conv, const std::unordered_map<const ir::Node*, size_t>& order,
                            const ir::Value** residual) {
  const ir::Value* out = conv->output(0);
  if (graph.isGraphOutput(out)) return nullptr;
  const std::vector<ir::Node*> users = graph.users(out);
  if (users.size() != 1) return nullptr;
  const ir::Node* add = users[0];
  if (add->qualifiedOp() != "Add" || add->numInputs() != 2 || add->input(0) == add->input(1)) return nullptr;
  const ir::Value* other = add->input(0) == out ? add->input(1) : add->input(0);
  if (!other || !other->hasType() || other->type() != out->type() || add->output(0)->type() != out->type()) return nullptr;
  if (out->type().dtype != rt::DType::F32) return nullptr;
  if (const ir::Node* p = other->producer())
    if (order.at(p) >= order.at(conv)) return nullptr;
  *residual = other;
  return add;
}

}  // namespace

LoweredModule newModule(const std::string& name, const llvm::TargetMachine& machine) {
  LoweredModule lowered;
  lowered.context = std::make_unique<llvm::LLVMContext>();
  lowered.module = std::make_unique<llvm::Module>(name.empty() ? "vdla" : name, *lowered.context);
  lowered.module->setTargetTriple(machine.getTargetTriple().str());
  lowered.module->setDataLayout(machine.createDataLayout());
  return lowered;
}

bool supportsOperator(const std::string& op) { return emitters().count(op) != 0; }

rt::ArtifactStep emitNodeStep(const ir::Node& node, const ir::Node* add, const ir::Value* residual,
                              StepEmitter& emitter, const std::string& symbol, rt::Artifact& a,
                              const std::function<int32_t(const ir::Value*)>& idOf) {
  const std::string op = node.qualifiedOp();
  auto emit = emitters().find(op);
  if (emit == emitters().end())
    throw std::runtime_error(node.describe() + ": target 'llvm' does not support operator '" + op + "'");
  std::vector<const ir::Value*> outputs;
  for (const ir::Value* out : (add ? add : &node)->outputs()) {
    if (!out) throw std::runtime_error(node.describe() + ": optional outputs are not supported");
    if (!out->hasType()) throw std::runtime_error(node.describe() + ": output '" + out->name() + "' has no type");
    outputs.push_back(out);
  }
  StepBuilder s(node, emitter, symbol, outputs);
  s.fused_add = add;
  s.residual = residual;
  try {
    emit->second(s);
    if (!s.started()) throw std::logic_error(node.describe() + ": emitter produced no code");
  } catch (...) {
    emitter.abandon(symbol);
    throw;
  }

  rt::ArtifactStep step;
  step.kernel = std::string(rt::native::kNativeKernelPrefix) + symbol;
  step.name = add ? node.name() + "+" + add->name() : node.name();
  for (const StepBuilder::Input& in : s.inputs()) {
    if (in.value) {
      step.inputs.push_back(idOf(in.value));
      continue;
    }
    rt::ArtifactTensor t;
    t.name = in.name;
    t.type = in.constant->type();
    t.constant = *in.constant;
    step.inputs.push_back(static_cast<int32_t>(a.tensors.size()));
    a.tensors.push_back(std::move(t));
  }
  for (const ir::Value* out : outputs) step.outputs.push_back(idOf(out));
  step.attrs.set("op", add ? op + "+Add" : op);
  if (s.workspaceShared()) step.attrs.set(rt::native::kWorkspaceSharedAttr, s.workspaceShared());
  if (s.workspaceThread()) step.attrs.set(rt::native::kWorkspaceThreadAttr, s.workspaceThread());
  return step;
}

void finishModule(llvm::Module& module, llvm::TargetMachine& machine) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (llvm::verifyModule(module, &os)) throw std::logic_error("llvm lowering produced invalid IR: " + os.str());
  optimizeModule(module, machine);
}

LoweredModule lowerGraph(const ir::Graph& graph, llvm::TargetMachine& machine, const CpuCompileOptions& options) {
  LoweredModule lowered = newModule(graph.name, machine);
  StepEmitter emitter(*lowered.module, tuningFor(machine));

  rt::Artifact& a = lowered.artifact;
  a.target = "llvm";
  a.model_name = graph.name;
  a.metadata["producer"] = "vdla compiler";
  a.metadata["llvm.triple"] = machine.getTargetTriple().str();
  a.metadata["llvm.cpu"] = machine.getTargetCPU().str();

  std::unordered_map<const ir::Value*, int32_t> ids;
  auto idOf = [&](const ir::Value* v) -> int32_t {
    auto it = ids.find(v);
    if (it != ids.end()) return it->second;
    if (!v->hasType()) throw std::runtime_error("lowering: value '" + v->name() + "' has no type");
    rt::ArtifactTensor t;
    t.name = v->name();
    t.type = v->type();
    if (v->isConstant()) t.constant = v->constant();
    const int32_t id = static_cast<int32_t>(a.tensors.size());
    a.tensors.push_back(std::move(t));
    ids.emplace(v, id);
    return id;
  };
  for (const ir::Value* v : graph.inputs()) a.inputs.push_back(idOf(v));

  const std::vector<ir::Node*> nodes = graph.nodes();
  std::unordered_map<const ir::Node*, size_t> order;
  for (size_t i = 0; i < nodes.size(); ++i) order[nodes[i]] = i;
  std::unordered_map<const ir::Node*, bool> fused;
  for (const ir::Node* node : nodes) {
    if (fused.count(node)) continue;
    const ir::Node* add = nullptr;
    const ir::Value* residual = nullptr;
    if (node->qualifiedOp() == "Conv" && options.fuse_residual) add = residualAdd(graph, node, order, &residual);
    const std::string symbol = "vdla_step_" + std::to_string(a.steps.size());
    a.steps.push_back(emitNodeStep(*node, add, residual, emitter, symbol, a, idOf));
    if (add) fused[add] = true;
  }
  for (const ir::Value* v : graph.outputs()) a.outputs.push_back(idOf(v));
  a.validate("llvm lowering of graph '" + graph.name + "'");
  finishModule(*lowered.module, machine);
  return lowered;
}

}  // namespace vdla::cpu
