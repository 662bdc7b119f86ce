#include "lower.h"

#include <map>
#include <stdexcept>
#include <unordered_map>

#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include "emit_conv_layout.h"
#include "step_builder.h"
#include "target.h"
#include "vdla/runtime/kernel_registry.h"
#include "vdla/runtime/kernels/reference_kernels.h"
#include "vdla/runtime/native/native_kernels.h"

namespace vdla::cpu {

namespace {

using EmitFn = void (*)(StepBuilder&);

const std::map<std::string, EmitFn>& emitters() {
  static const std::map<std::string, EmitFn> table = {
      {"Conv", emitConv},
      {"Gemm", emitGemm},
      {"MatMul", emitMatMul},
      {"MaxPool", emitPool},
      {"AveragePool", emitPool},
      {"GlobalAveragePool", emitGlobalPool},
      {"GlobalMaxPool", emitGlobalPool},
      {"Relu", emitUnary},
      {"Neg", emitUnary},
      {"Abs", emitUnary},
      {"Sigmoid", emitUnary},
      {"Tanh", emitUnary},
      {"Exp", emitUnary},
      {"Sqrt", emitUnary},
      {"Reciprocal", emitUnary},
      {"LeakyRelu", emitUnary},
      {"HardSigmoid", emitUnary},
      {"HardSwish", emitUnary},
      {"Add", emitBinary},
      {"Sub", emitBinary},
      {"Mul", emitBinary},
      {"Div", emitBinary},
      {"Clip", emitClip},
      {"Reshape", emitCopy},
      {"Flatten", emitCopy},
      {"Squeeze", emitCopy},
      {"Unsqueeze", emitCopy},
      {"Identity", emitCopy},
      {"Dropout", emitCopy},
      {"Softmax", emitSoftmax},
      {"LogSoftmax", emitSoftmax},
      {"Concat", emitConcat},
      {"BatchNormalization", emitBatchNorm},
      // int8 (the operators a quantised graph runs on the CPU)
      {"vdla.QConv", emitQConv},
      {"QuantizeLinear", emitQuantizeLinear},
      {"DequantizeLinear", emitDequantizeLinear},
      {"com.microsoft.QLinearAdd", emitQLinearAdd},
      {"com.microsoft.QLinearGlobalAveragePool", emitQLinearGlobalAveragePool},
  };
  return table;
}

// The Add that a Conv's output feeds, when it can become the Conv's
// epilogue: its only reader, f32, the other operand of the same shape and
// already computed when the Conv runs.
const ir::Node* residualAdd(const ir::Graph& graph, const ir::Node* conv,
                            const std::unordered_map<const ir::Node*, size_t>& order, const ir::Value** residual) {
  const ir::Value* out = conv->output(0);
  if (graph.isGraphOutput(out)) return nullptr;
  const std::vector<ir::Node*> users = graph.users(out);
  if (users.size() != 1) return nullptr;
  const ir::Node* add = users[0];
  if (add->qualifiedOp() != "Add" || add->numInputs() != 2 || add->input(0) == add->input(1)) return nullptr;
  const ir::Value* other = add->input(0) == out ? add->input(1) : add->input(0);
  if (!other || !other->hasType() || other->type() != out->type() || add->output(0)->type() != out->type())
    return nullptr;
  if (out->type().dtype != rt::DType::F32) return nullptr;
  if (const ir::Node* p = other->producer())
    if (order.at(p) >= order.at(conv)) return nullptr;
  *residual = other;
  return add;
}

bool constantOrMissing(const ir::Node* n, size_t i) {
  return i >= n->numInputs() || !n->input(i) || n->input(i)->isConstant();
}

bool allEqual(const ir::Node* n, const char* name, int64_t value) {
  for (int64_t v : n->attrs().getInts(name, {}))
    if (v != value) return false;
  return true;
}

// A Conv that the fused steps can take as their 1x1 half: 2-D, f32,
// ungrouped, 1x1, stride 1, no padding, constant weights and bias, one output.
bool plainPointwise(const ir::Node* conv) {
  if (conv->qualifiedOp() != "Conv" || conv->numInputs() < 2 || conv->numOutputs() != 1) return false;
  const ir::Value* x = conv->input(0);
  const ir::Value* wt = conv->input(1);
  const ir::Value* out = conv->output(0);
  if (!x || !wt || !out || !x->hasType() || !wt->hasType() || !out->hasType()) return false;
  if (!wt->isConstant() || !constantOrMissing(conv, 2)) return false;
  const rt::Shape& ws = wt->type().shape;
  if (x->type().dtype != rt::DType::F32 || out->type().dtype != rt::DType::F32 || x->type().shape.size() != 4 ||
      ws.size() != 4 || ws[2] != 1 || ws[3] != 1 || conv->attrs().getInt("group", 1) != 1)
    return false;
  const std::string auto_pad = conv->attrs().getString("auto_pad", "NOTSET");
  return allEqual(conv, "strides", 1) && allEqual(conv, "pads", 0) && (auto_pad == "NOTSET" || auto_pad == "VALID");
}

// A depthwise Conv: 2-D, f32, one filter per channel, constant weights and
// bias, one output.
bool plainDepthwise(const ir::Node* dw) {
  if (dw->qualifiedOp() != "Conv" || dw->numInputs() < 2 || dw->numOutputs() != 1) return false;
  const ir::Value* x = dw->input(0);
  const ir::Value* wt = dw->input(1);
  const ir::Value* out = dw->output(0);
  if (!x || !wt || !out || !x->hasType() || !wt->hasType() || !out->hasType() || !wt->isConstant() ||
      !constantOrMissing(dw, 2))
    return false;
  const rt::Shape& ws = wt->type().shape;
  return x->type().dtype == rt::DType::F32 && out->type().dtype == rt::DType::F32 && x->type().shape.size() == 4 &&
         ws.size() == 4 && ws[1] == 1 && ws[0] == x->type().shape[1] && dw->attrs().getInt("group", 1) == ws[0];
}

// The only reader of `node`'s output when it is not a graph output.
const ir::Node* soleReader(const ir::Graph& graph, const ir::Node* node) {
  const ir::Value* out = node->output(0);
  if (graph.isGraphOutput(out)) return nullptr;
  const std::vector<ir::Node*> users = graph.users(out);
  return users.size() == 1 && users[0]->numInputs() > 0 && users[0]->input(0) == out ? users[0] : nullptr;
}

// The depthwise Conv that a 1x1 expansion Conv feeds, when the two can run
// as one step (emit_expand_depthwise.cpp): the expansion a plain 1x1 Conv,
// its output read by the depthwise Conv alone (and not a graph output).
const ir::Node* fusableDepthwise(const ir::Graph& graph, const ir::Node* conv) {
  if (!plainPointwise(conv)) return nullptr;
  const ir::Node* dw = soleReader(graph, conv);
  if (!dw || !plainDepthwise(dw)) return nullptr;
  return dw;
}

// The 1x1 Conv that a depthwise Conv feeds, when the two can run as one step
// (emit_depthwise_pointwise.cpp): the depthwise layer reads its input rows
// in place (stride 1, or 3x3 stride 2 with one pixel of padding), its
// output is read by the 1x1 Conv alone, and the 1x1 Conv has no residual
// Add to take (that fusion is kept).
const ir::Node* fusablePointwise(const ir::Graph& graph, const ir::Node* dw, const TargetTuning& tune) {
  if (!plainDepthwise(dw)) return nullptr;
  const ir::Node* pw = soleReader(graph, dw);
  if (!pw || !plainPointwise(pw)) return nullptr;
  try {
    const rt::Shape& ws = dw->input(1)->type().shape;
    const Window2 w = resolveWindow2(*dw, dw->input(0)->type().shape, dw->output(0)->type().shape, ws[2], ws[3]);
    if (!depthwiseReadsRowsInPlace(w, tune)) return nullptr;
  } catch (const std::exception&) {
    return nullptr;  // the unfused step reports the problem
  }
  return pw;
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
                              const std::function<int32_t(const ir::Value*)>& idOf, const ir::Node* depthwise,
                              const ir::Node* pointwise) {
  const std::string op = node.qualifiedOp();
  auto emit = emitters().find(op);
  if (emit == emitters().end())
    throw std::runtime_error(node.describe() + ": target 'llvm' does not support operator '" + op + "'");
  std::vector<const ir::Value*> outputs;
  const ir::Node* last = pointwise ? pointwise : depthwise ? depthwise : add ? add : &node;
  for (const ir::Value* out : last->outputs()) {
    if (!out) throw std::runtime_error(node.describe() + ": optional outputs are not supported");
    if (!out->hasType()) throw std::runtime_error(node.describe() + ": output '" + out->name() + "' has no type");
    outputs.push_back(out);
  }
  StepBuilder s(node, emitter, symbol, outputs);
  s.fused_add = add;
  s.residual = residual;
  s.fused_depthwise = depthwise;
  s.fused_pointwise = pointwise;
  try {
    emit->second(s);
    if (!s.started()) throw std::logic_error(node.describe() + ": emitter produced no code");
  } catch (...) {
    emitter.abandon(symbol);
    throw;
  }

  rt::ArtifactStep step;
  step.kernel = std::string(rt::native::kNativeKernelPrefix) + symbol;
  step.name = last == &node ? node.name() : node.name() + "+" + last->name();
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
  step.attrs.set("op", depthwise ? op + "+DepthwiseConv" : pointwise ? "DepthwiseConv+Conv" : add ? op + "+Add" : op);
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
  rt::KernelRegistry& reference = rt::KernelRegistry::global();
  rt::registerReferenceKernels(reference);
  for (const ir::Node* node : nodes) {
    if (fused.count(node)) continue;
    if (!supportsOperator(node->qualifiedOp())) {
      // An operator the generated code lacks runs on its reference kernel,
      // bound by the runtime like any other ("ref." steps of an llvm
      // artifact; the compile report lists them).
      const std::string op = node->qualifiedOp();
      rt::ArtifactStep step;
      step.name = node->name();
      step.kernel = rt::referenceKernelName(op);
      if (!reference.find(step.kernel))
        throw std::runtime_error(node->describe() + ": target 'llvm' has no code for operator '" + op +
                                 "' and there is no reference kernel for it either");
      for (const ir::Value* in : node->inputs()) step.inputs.push_back(in ? idOf(in) : -1);
      for (const ir::Value* out : node->outputs()) step.outputs.push_back(idOf(out));
      step.attrs = node->attrs();
      a.steps.push_back(std::move(step));
      continue;
    }
    const ir::Node* add = nullptr;
    const ir::Value* residual = nullptr;
    const ir::Node* depthwise = options.fuse_expand_depthwise ? fusableDepthwise(graph, node) : nullptr;
    const ir::Node* pointwise =
        options.fuse_depthwise_pointwise ? fusablePointwise(graph, node, emitter.tuning()) : nullptr;
    if (pointwise && options.fuse_residual) {
      const ir::Value* unused = nullptr;
      if (residualAdd(graph, pointwise, order, &unused)) pointwise = nullptr;  // keep Conv+Add
    }
    if (!depthwise && !pointwise && node->qualifiedOp() == "Conv" && options.fuse_residual)
      add = residualAdd(graph, node, order, &residual);
    const std::string symbol = "vdla_step_" + std::to_string(a.steps.size());
    a.steps.push_back(emitNodeStep(*node, add, residual, emitter, symbol, a, idOf, depthwise, pointwise));
    if (add) fused[add] = true;
    if (depthwise) fused[depthwise] = true;
    if (pointwise) fused[pointwise] = true;
  }
  for (const ir::Value* v : graph.outputs()) a.outputs.push_back(idOf(v));
  a.validate("llvm lowering of graph '" + graph.name + "'");
  finishModule(*lowered.module, machine);
  return lowered;
}

}  // namespace vdla::cpu
