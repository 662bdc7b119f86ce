// Phase 4 of the accelerator lowering: the artifact. Every offloaded layer's
// program (convolution, max pooling, addition or global pooling) is generated at its place in the
// activation arena and becomes a "vdla.conv" step; every other node a CPU step running its reference kernel
// (which the cpu-fallback stage may replace by generated code).
#include <algorithm>
#include <stdexcept>
#include <unordered_map>

#include "vdla/compiler/accel/lowering.h"
#include "vdla/compiler/accel/program_chain.h"
#include "vdla/runtime/accel/device_program.h"
#include "vdla/runtime/accel/device_session.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::accel {

rt::Artifact generateAccelArtifact(const ir::Graph& graph, const hw::HwConfig& cfg, const AccelOptions& options,
                                   AccelLowering& l) {
  // The plan points into the graph: it must be the one it was made for, unchanged.
  const std::vector<ir::Node*> nodes = graph.nodes();
  if (!l.arena_planned || !std::equal(nodes.begin(), nodes.end(), l.nodes.begin(), l.nodes.end()))
    throw std::logic_error("code generation needs the partition and the arena of this graph");

  rt::KernelRegistry& kernels = rt::KernelRegistry::global();
  rt::registerReferenceKernels(kernels);
  rt::Artifact a;
  a.target = "vdla";
  a.model_name = graph.name;
  a.hw_config_name = cfg.name;
  a.hw_config_hash = cfg.hash;
  a.metadata["producer"] = "vdla compiler";
  a.metadata["latency_hiding"] = options.latency_hiding ? "on" : "off";

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

  rt::accel::DeviceModule module;
  module.io_bytes = l.arena_bytes;
  std::vector<uint8_t> constants;
  for (const ir::Value* v : graph.inputs()) a.inputs.push_back(idOf(v));
  for (size_t s = 0; s < nodes.size(); ++s) {
    const ir::Node* node = nodes[s];
    LayerDecision& d = l.decisions[s];
    rt::ArtifactStep step;
    step.name = node->name();
    if (l.offloads[s]) {
      const Offload& o = *l.offloads[s];
      try {
        ConvProgram prog = o.pool  ? generatePoolProgram(*o.pool, d.plan, cfg, constants.size(), o.placement)
                           : o.add ? generateAddProgram(*o.add, d.plan, cfg, constants.size(), o.placement)
                           : o.global_pool
                               ? generateGlobalPoolProgram(*o.global_pool, d.plan, cfg, constants.size(), o.placement)
                               : generateConvProgram(o.form.layer, d.plan, cfg, constants.size(), o.placement);
        if (uint64_t(prog.io_bytes) > module.io_bytes)
          throw std::runtime_error("its program reaches past the planned activation arena");
        constants.insert(constants.end(), prog.constants.begin(), prog.constants.end());
        d.program = module.programs.size();
        d.instructions = prog.program.insns.size();
        module.programs.push_back(std::move(prog.program));
      } catch (const std::exception& e) {
        // A layer whose form was chosen must lower; anything else is a bug.
        throw std::runtime_error(node->describe() + ": internal error lowering it for the accelerator: " + e.what());
      }
      step.kernel = rt::accel::kConvKernel;
      step.inputs.push_back(idOf(node->input(0)));
      if (o.hasResidual()) step.inputs.push_back(idOf(node->input(o.residualInput())));
      step.outputs.push_back(idOf(node->output(0)));
      step.attrs.set("program", static_cast<int64_t>(d.program));
      step.attrs.set("x_offset", o.placement.x_offset);
      step.attrs.set("r_offset", o.placement.r_offset);
      step.attrs.set("y_offset", o.placement.y_offset);
      step.attrs.set("has_residual", int64_t(o.hasResidual() ? 1 : 0));
      // The channel block of the input's packing (block_in for a convolution; a
      // max pooling reads its producer's output packing).
      step.attrs.set("x_block", o.inputGeometry(cfg).block);
      // The output's and the residual's (block_in when the layer interleaves its output).
      step.attrs.set("y_block", o.outputGeometry(cfg).block);
      step.attrs.set("x_resident", int64_t(o.x_resident ? 1 : 0));
      step.attrs.set("r_resident", int64_t(o.r_resident ? 1 : 0));
      step.attrs.set("y_to_host", int64_t(o.y_to_host ? 1 : 0));
      const rt::accel::InputTransform t = o.isConv() ? o.form.layer.host : rt::accel::InputTransform{};
      if (!t.identity()) {
        step.attrs.set("host_pads", std::vector<int64_t>{t.pad_top, t.pad_left, t.pad_bottom, t.pad_right});
        step.attrs.set("host_pad_value", int64_t(t.pad_value));
        if (t.im2col) step.attrs.set("host_im2col", std::vector<int64_t>{t.kh, t.kw, t.sh, t.sw});
        if (t.space_to_depth > 1) step.attrs.set("host_space_to_depth", t.space_to_depth);
        if (t.unfold_columns > 1) step.attrs.set("host_unfold_columns", t.unfold_columns);
      }
      step.attrs.set("macs", d.macs);
    } else {
      step.kernel = rt::referenceKernelName(node->qualifiedOp());
      if (!kernels.find(step.kernel))
        throw std::runtime_error(node->describe() + ": target 'vdla' has no CPU kernel '" + step.kernel + "'");
      for (const ir::Value* in : node->inputs()) step.inputs.push_back(in ? idOf(in) : -1);
      for (const ir::Value* out : node->outputs()) step.outputs.push_back(idOf(out));
      step.attrs = node->attrs();
    }
    a.steps.push_back(std::move(step));
  }
  for (const ir::Value* v : graph.outputs()) a.outputs.push_back(idOf(v));
  if (options.chain_layers) {
    chainArtifactSteps(a, module, cfg);
    for (size_t s = 1; s < a.steps.size(); ++s)
      if (a.steps[s].attrs.getInt(kChainedAttr, 0) != 0)
        l.decisions[s].chain_overlap = chainOverlapCycles(l.decisions[s - 1].estimate, l.decisions[s].estimate);
  }
  a.blobs[rt::accel::kProgramsBlob] = rt::accel::serializeDeviceModule(module, cfg);
  a.blobs[rt::accel::kConstantsBlob] = std::move(constants);
  a.validate("lowering of graph '" + graph.name + "' for the accelerator");
  return a;
}

}  // namespace vdla::accel
