// Phase 1 of the accelerator lowering: where each node runs. Every vdla.QConv
// the accelerator can run gets its form (direct or im2col) and tiling from the
// cost model, every max pooling, quantised addition and global average
// pooling it can run its tiling (the last two only with an exact integer
// form); every other node stays on the CPU with the reason recorded.
#include <set>
#include <stdexcept>

#include "vdla/compiler/accel/lowering.h"

namespace vdla::accel {

namespace {

// A layer that is not a convolution: offloaded when `why` is empty and
// `plan` (which fills the offload, the decision's plan and estimate, and
// generates the program once to find what does not fit) succeeds.
template <class Plan>
void partitionOther(const ir::Node& node, const std::string& why, LayerDecision& d, std::optional<Offload>& offload,
                    Plan&& plan) {
  d.reason = why;
  if (!d.reason.empty()) return;
  try {
    Offload o;
    plan(o);
    d.offloaded = true;
    offload = std::move(o);
  } catch (const DoesNotFit& e) {
    d.reason = e.what();
  } catch (const std::exception& e) {
    throw std::runtime_error(node.describe() + ": internal error lowering it for the accelerator: " + e.what());
  }
}

// Why a node with no accelerator form runs on the CPU, for the compile report.
std::string cpuReason(const ir::Node& node, const std::string& op, const AccelOptions& options) {
  if (!options.offload_pooling && (op == "MaxPool" || op == "com.microsoft.QLinearGlobalAveragePool"))
    return "pooling is kept on the CPU (offload_pooling off, --no-pool-offload)";
  if (!options.offload_adds && op == "com.microsoft.QLinearAdd")
    return "additions are kept on the CPU (offload_adds off, --no-add-offload)";
  auto dtypeOf = [](const ir::Value* v) { return v && v->hasType() ? v->type().dtype : rt::DType::F32; };
  if (op == "QuantizeLinear" && dtypeOf(node.input(0)) == rt::DType::F32)
    return "quantises an f32 tensor (the network's input): the accelerator computes in integers";
  if (op == "DequantizeLinear") return "its output is f32 (the network's output): the accelerator computes in integers";
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze")
    return "a change of shape that the accelerator's packed layout cannot express (kept where a tensor leaves or "
           "enters it in another rank)";
  return "operator " + op + " has no accelerator form";
}

}  // namespace

AccelLowering partitionForAccelerator(const ir::Graph& graph, const hw::HwConfig& cfg, const AccelOptions& options) {
  AccelLowering l;
  const std::vector<ir::Node*> nodes = graph.nodes();
  l.nodes.assign(nodes.begin(), nodes.end());
  l.decisions.resize(nodes.size());
  l.offloads.resize(nodes.size());
  std::set<const ir::Value*> offloaded_outputs;  // written by a layer offloaded so far
  for (size_t s = 0; s < nodes.size(); ++s) {
    if (s > 0 && l.offloads[s - 1])
      for (size_t i = 0; i < nodes[s - 1]->numOutputs(); ++i) offloaded_outputs.insert(nodes[s - 1]->output(i));
    const ir::Node* node = nodes[s];
    LayerDecision& d = l.decisions[s];
    d.name = node->name();
    d.op = node->qualifiedOp();
    if (node->input(0) && node->input(0)->hasType()) d.input_shape = node->input(0)->type().toString();
    d.output_shape = node->output(0)->type().toString();
    if (d.op == "MaxPool" && options.offload_pooling) {
      partitionOther(*node, whyNotOffloadablePool(*node), d, l.offloads[s], [&](Offload& o) {
        o.pool = poolLayerFromNode(*node);
        d.plan = choosePoolTiling(*o.pool, cfg, options.latency_hiding, &d.estimate);
        generatePoolProgram(*o.pool, d.plan, cfg, 0, standalonePoolPlacement(*o.pool, cfg));
      });
      continue;
    }
    if (d.op == "com.microsoft.QLinearGlobalAveragePool" && options.offload_pooling) {
      partitionOther(*node, whyNotOffloadableGlobalPool(*node), d, l.offloads[s], [&](Offload& o) {
        o.global_pool = globalPoolLayerFromNode(*node);
        d.plan = chooseGlobalPoolTiling(*o.global_pool, cfg, options.latency_hiding, &d.estimate);
        generateGlobalPoolProgram(*o.global_pool, d.plan, cfg, 0, standaloneGlobalPoolPlacement(*o.global_pool, cfg));
      });
      continue;
    }
    if (d.op == "com.microsoft.QLinearAdd" && options.offload_adds) {
      partitionOther(*node, whyNotOffloadableAdd(*node), d, l.offloads[s], [&](Offload& o) {
        o.add = addLayerFromNode(*node);
        d.plan = chooseAddTiling(*o.add, cfg, options.latency_hiding, &d.estimate);
        generateAddProgram(*o.add, d.plan, cfg, 0, standaloneAddPlacement(*o.add, cfg));
      });
      continue;
    }
    if (d.op != "vdla.QConv") {
      d.reason = cpuReason(*node, d.op, options);
      continue;
    }
    d.reason = whyNotOffloadable(*node);
    if (d.reason.empty() && node->attrs().getInt("float_requant", 0) != 0 && !cfg.float_requant)
      d.reason = "its float requantisation needs the ALU op FREQ (extension float_requant), which config '" + cfg.name +
                 "' does not enable";
    if (!d.reason.empty()) continue;
    try {
      const ConvLayer direct = convLayerFromNode(*node);
      d.macs = direct.macs();
      Offload o;
      o.form = chooseLayerForm(direct, cfg, options.latency_hiding, options.allow_im2col, options.allow_unfold,
                               offloaded_outputs.count(node->input(0)) > 0);
      // Code generation can still find the layer does not fit (a tile wholly
      // in the padding, too many micro-ops); it is generated again at its
      // place in the arena, which changes addresses only.
      generateConvProgram(o.form.layer, o.form.plan, cfg, 0);
      d.plan = o.form.plan;
      d.estimate = o.form.estimate;
      d.im2col = o.form.im2col;
      d.space_to_depth = o.form.space_to_depth;
      d.unfold_columns = o.form.unfold_columns;
      d.offloaded = true;
      l.offloads[s] = std::move(o);
    } catch (const DoesNotFit& e) {
      // A placement decision: the layer runs on the CPU, and says why.
      d.reason = e.what();
    } catch (const std::exception& e) {
      // Anything else is a bug that must not turn into a silent slowdown.
      throw std::runtime_error(node->describe() + ": internal error lowering it for the accelerator: " + e.what());
    }
  }
  return l;
}

}  // namespace vdla::accel
