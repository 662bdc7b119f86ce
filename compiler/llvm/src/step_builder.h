// What an operator emitter works with: the node it lowers, the values its
// step reads (graph values and constants the emitter derives, such as packed
// weights), the step's outputs and workspace, and the StepEmitter producing
// its function. Emitters first declare every input, then ask for code().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "emitter.h"
#include "vdla/compiler/ir/graph.h"

namespace vdla::cpu {

// A fused activation: y = min(max(x, lo), hi) (Relu: lo = 0, hi = +inf).
struct Activation {
  bool enabled = false;
  float lo = 0, hi = 0;
};
// Reads the "activation" attributes a fusion pass attaches; throws naming
// the node for an unknown one.
Activation readActivation(const ir::Node& node);
// Applies it to a scalar or vector value, exactly as the reference kernels:
// max first, then min, NaN passing through.
llvm::Value* applyActivation(StepEmitter& e, llvm::Value* v, const Activation& act);

class StepBuilder {
 public:
  // One read of the step: a graph value or a constant made by the emitter.
  struct Input {
    const ir::Value* value = nullptr;
    std::optional<rt::Tensor> constant;
    std::string name;
  };

  StepBuilder(const ir::Node& node, StepEmitter& emitter, std::string symbol, std::vector<const ir::Value*> outputs)
      : node_(node), emitter_(emitter), symbol_(std::move(symbol)), outputs_(std::move(outputs)) {}

  const ir::Node& node() const { return node_; }
  // Conv with a following Add folded into its epilogue: the Add node and its
  // other operand (same shape as the output).
  const ir::Node* fused_add = nullptr;
  const ir::Value* residual = nullptr;
  // A 1x1 Conv with the depthwise Conv that reads its output folded into
  // one step (emit_expand_depthwise.cpp): the depthwise node, whose outputs
  // are the step's.
  const ir::Node* fused_depthwise = nullptr;
  // A depthwise Conv with the 1x1 Conv that reads its output folded into
  // one step (emit_depthwise_pointwise.cpp): the 1x1 node, whose outputs
  // are the step's.
  const ir::Node* fused_pointwise = nullptr;

  // Slot of a graph value the step reads.
  int use(const ir::Value* v);
  // Slot of node input i, -1 when the optional input is missing.
  int useInput(size_t i) { return node_.input(i) ? use(node_.input(i)) : -1; }
  // Slot of a constant computed at compile time.
  int addConstant(const std::string& suffix, rt::Tensor t);
  // Slot of output i (inputs are fixed from then on).
  int output(size_t i) const { return static_cast<int>(inputs_.size() + i); }
  const ir::Value* outputValue(size_t i) const { return outputs_.at(i); }

  void setWorkspace(int64_t shared_bytes, int64_t thread_bytes) {
    workspace_shared_ = shared_bytes;
    workspace_thread_ = thread_bytes;
  }
  int64_t workspaceShared() const { return workspace_shared_; }
  int64_t workspaceThread() const { return workspace_thread_; }

  const TargetTuning& tuning() const { return emitter_.tuning(); }
  // The emitter, with the step function begun.
  StepEmitter& code();
  bool started() const { return started_; }
  const std::string& symbol() const { return symbol_; }
  const std::vector<Input>& inputs() const { return inputs_; }
  const std::vector<const ir::Value*>& outputs() const { return outputs_; }

  // Throws a compile error naming the node.
  [[noreturn]] void fail(const std::string& why) const;
  // Type of node input i; throws naming the node when missing or untyped.
  const rt::TensorType& inputType(size_t i) const;
  const rt::TensorType& outputType(size_t i = 0) const { return outputs_.at(i)->type(); }
  void requireF32() const;

 private:
  const ir::Node& node_;
  StepEmitter& emitter_;
  std::string symbol_;
  std::vector<const ir::Value*> outputs_;
  std::vector<Input> inputs_;
  int64_t workspace_shared_ = 0, workspace_thread_ = 0;
  bool started_ = false;
};

// Sliding-window geometry of a 1-D or 2-D Conv or pooling node, in two
// spatial dimensions (1-D windows get height 1). The output size comes from
// the typed output, so ceil_mode needs no special case; the begin padding
// from "pads" or "auto_pad".
struct Window2 {
  int64_t in_h, in_w, k_h, k_w, out_h, out_w, stride_h, stride_w, dil_h, dil_w, pad_top, pad_left;
  int64_t pad_bottom, pad_right;  // explicit end padding (AveragePool count_include_pad)
};
Window2 resolveWindow2(const StepBuilder& s, const rt::Shape& x, const rt::Shape& y, int64_t k_h, int64_t k_w);
// The same for another node than the step's own (errors name that node).
Window2 resolveWindow2(const ir::Node& node, const rt::Shape& x, const rt::Shape& y, int64_t k_h, int64_t k_w);

// One emitter per operator family (emit_*.cpp).
void emitConv(StepBuilder& s);
void emitExpandDepthwise(StepBuilder& s);
void emitDepthwisePointwise(StepBuilder& s);
void emitGemm(StepBuilder& s);
void emitMatMul(StepBuilder& s);
void emitPool(StepBuilder& s);
void emitGlobalPool(StepBuilder& s);
// f32 MaxPool vectorised along output rows (emit_maxpool_rows.cpp), for
// windows without dilation and a horizontal stride up to 4.
bool maxPoolRowsApplies(const Window2& w);
void emitMaxPoolRows(StepBuilder& s, const Window2& w, int64_t planes);
void emitUnary(StepBuilder& s);
void emitBinary(StepBuilder& s);
void emitClip(StepBuilder& s);
void emitCopy(StepBuilder& s);
void emitSoftmax(StepBuilder& s);
void emitConcat(StepBuilder& s);
void emitBatchNorm(StepBuilder& s);
void emitQConv(StepBuilder& s);
void emitQuantizeLinear(StepBuilder& s);
void emitDequantizeLinear(StepBuilder& s);
void emitQLinearAdd(StepBuilder& s);
void emitQLinearGlobalAveragePool(StepBuilder& s);

}  // namespace vdla::cpu
