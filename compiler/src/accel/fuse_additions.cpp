#include "vdla/compiler/accel/fuse_additions.h"

#include <cstdint>
#include <cstdlib>
#include <optional>

#include "vdla/compiler/accel/add_layer.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/layer_form.h"

namespace vdla::accel {

ConvLayer fusedConvLayer(const ConvLayer& conv, const IntegerAddForm& f, bool y_is_a) {
  ConvLayer L = conv;
  L.residual = true;
  L.post_add = true;
  L.add_y_mult = y_is_a ? f.ma : f.mb;
  L.residual_mult.assign(static_cast<size_t>(L.o), y_is_a ? f.mb : f.ma);
  L.add_offset = f.k;
  L.add_shift = f.shift;
  return L;
}

namespace {

// Near-ties go to the fused layer: it is one program instead of two, and
// on these layers the cost model's errors are of this size (zcu104's
// load-bound projections run 5-9% above their estimates, which made
// separate additions look cheaper than they measure: MobileNetV2 0.4%
// slower with five of them apart).
constexpr double kFusionTieMargin = 1.02;

// The accelerator's cycles for a layer in its cheapest form; nullopt when no
// form fits. (The host's work on the input is the same with the addition
// fused or not.)
std::optional<CostEstimate> estimateOf(const ConvLayer& L, const hw::HwConfig& cfg, const AccelOptions& o) {
  try {
    return chooseLayerForm(L, cfg, o.latency_hiding, o.allow_im2col, o.allow_unfold).estimate;
  } catch (const DoesNotFit&) {
    return std::nullopt;
  }
}

}  // namespace

ir::Node* fusibleConvolution(const ir::Graph& graph, const ir::Node& add, size_t slot) {
  if (add.qualifiedOp() != "com.microsoft.QLinearAdd" || (slot != 0 && slot != 3)) return nullptr;
  const ir::Value* y = add.input(slot);
  ir::Node* conv = y ? y->producer() : nullptr;
  if (!conv || conv->qualifiedOp() != "vdla.QConv" || conv->input(5) || graph.isGraphOutput(y) ||
      graph.users(y).size() != 1 || add.input(slot == 0 ? 3 : 0) == y || !whyNotOffloadable(*conv).empty() ||
      !whyNotOffloadableAdd(add).empty())
    return nullptr;
  // The fused sums must fit the ALU's 32 bits (conv_layer.cpp says why).
  const IntegerAddForm f = addLayerFromNode(add).form;
  const int64_t bound = 128 * (std::llabs(int64_t{f.ma}) + std::llabs(int64_t{f.mb})) + std::llabs(int64_t{f.k}) +
                        (f.shift > 0 ? int64_t{1} << (f.shift - 1) : 0);
  return bound > INT32_MAX ? nullptr : conv;
}

ir::Node* fuseAdditionIntoConvolution(ir::Graph& graph, ir::Node* add, size_t slot) {
  ir::Node* conv = add->input(slot)->producer();
  const ConvLayer F = fusedConvLayer(convLayerFromNode(*conv), addLayerFromNode(*add).form, slot == 0);
  rt::Tensor rm(rt::DType::I32, {F.o});
  for (int64_t i = 0; i < F.o; ++i) rm.data<int32_t>()[i] = F.residual_mult[0];
  ir::Value* rm_value = graph.addConstant(graph.uniqueName(conv->name() + "_add_r_mult"), std::move(rm));
  // (A node may list its absent optional inputs as null.)
  conv->removeTrailingInputs(5);
  conv->addInput(add->input(slot == 0 ? 3 : 0));
  conv->addInput(rm_value);
  rt::AttributeMap& a = conv->attrs();
  a.set("post_add", int64_t{1});
  a.set("add_y_mult", int64_t{F.add_y_mult});
  a.set("add_offset", int64_t{F.add_offset});
  a.set("add_shift", int64_t{F.add_shift});
  // The fused node's output is the addition's, name included.
  const std::string name = add->output(0)->name();
  graph.replaceAllUsesWith(add->output(0), conv->output(0));
  graph.removeNode(add);
  conv->output(0)->setName(name);
  return conv;
}

std::optional<FusionCost> fusionCost(const ConvLayer& conv, const AddLayer& add, bool conv_is_a,
                                     const hw::HwConfig& cfg, const AccelOptions& options) {
  const std::optional<CostEstimate> alone = estimateOf(conv, cfg, options),
                                    together = estimateOf(fusedConvLayer(conv, add.form, conv_is_a), cfg, options);
  if (!alone || !together) return std::nullopt;
  CostEstimate add_estimate;
  try {
    chooseAddTiling(add, cfg, options.latency_hiding, &add_estimate);
  } catch (const DoesNotFit&) {
    return std::nullopt;  // the addition would run on the CPU: not the comparison made here
  }
  return FusionCost{alone->cycles + add_estimate.cycles, together->cycles, *together};
}

bool fusionPays(const FusionCost& cost) { return cost.fused < cost.separate * kFusionTieMargin; }

std::vector<AdditionFusion> fuseAdditionsIntoConvolutions(ir::Graph& graph, const hw::HwConfig& cfg,
                                                          const AccelOptions& requested) {
  std::vector<AdditionFusion> fused;
  if (!requested.offload_adds || !requested.fuse_additions) return fused;
  // Decided with latency hiding on whatever the compile's mode, so that the
  // two modes run the same layers (vdla profile compares them layer by layer).
  AccelOptions options = requested;
  options.latency_hiding = true;
  for (ir::Node* add : graph.nodes()) {
    for (const size_t slot : {size_t{0}, size_t{3}}) {  // QLinearAdd's operands A and B
      ir::Node* conv = fusibleConvolution(graph, *add, slot);
      if (!conv || (conv->attrs().getInt("float_requant", 0) != 0 && !cfg.float_requant)) continue;
      const std::optional<FusionCost> cost =
          fusionCost(convLayerFromNode(*conv), addLayerFromNode(*add), slot == 0, cfg, options);
      if (!cost || !fusionPays(*cost)) continue;
      fused.push_back({conv->name(), add->name(), cost->separate, cost->fused});
      fuseAdditionIntoConvolution(graph, add, slot);
      break;
    }
  }
  if (!fused.empty()) graph.topologicalSort();
  return fused;
}

}  // namespace vdla::accel
