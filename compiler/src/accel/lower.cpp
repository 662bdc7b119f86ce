#include "vdla/compiler/accel/lower.h"

#include <stdexcept>
#include <unordered_map>

#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/layer_form.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/runtime/accel/device_program.h"
#include "vdla/runtime/accel/device_session.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::accel {

rt::Artifact lowerForAccelerator(const ir::Graph& graph, const hw::HwConfig& cfg, const AccelOptions& options,
                                 std::vector<LayerDecision>* decisions) {
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
  std::vector<uint8_t> constants;
  for (const ir::Value* v : graph.inputs()) a.inputs.push_back(idOf(v));
  for (const ir::Node* node : graph.nodes()) {
    LayerDecision d;
    d.name = node->name();
    d.op = node->qualifiedOp();
    if (node->input(0) && node->input(0)->hasType()) d.input_shape = node->input(0)->type().toString();
    d.output_shape = node->output(0)->type().toString();
    rt::ArtifactStep step;
    step.name = node->name();
    if (d.op == "vdla.QConv") {
      d.reason = whyNotOffloadable(*node);
      if (d.reason.empty()) {
        try {
          const ConvLayer direct = convLayerFromNode(*node);
          d.macs = direct.macs();
          const LayerForm form = chooseLayerForm(direct, cfg, options.latency_hiding, options.allow_im2col);
          const ConvLayer& layer = form.layer;
          d.plan = form.plan;
          d.estimate = form.estimate;
          d.im2col = form.im2col;
          ConvProgram prog = generateConvProgram(layer, d.plan, cfg, constants.size());
          checkTokens(prog.program.insns, cfg, prog.program.name);
          constants.insert(constants.end(), prog.constants.begin(), prog.constants.end());
          module.io_bytes = std::max<uint64_t>(module.io_bytes, static_cast<uint64_t>(prog.io_bytes));
          d.program = module.programs.size();
          d.instructions = prog.program.insns.size();
          module.programs.push_back(std::move(prog.program));

          step.kernel = rt::accel::kConvKernel;
          step.inputs.push_back(idOf(node->input(0)));
          if (layer.residual) step.inputs.push_back(idOf(node->input(5)));
          step.outputs.push_back(idOf(node->output(0)));
          step.attrs.set("program", static_cast<int64_t>(d.program));
          step.attrs.set("x_offset", prog.x_offset);
          step.attrs.set("r_offset", prog.r_offset);
          step.attrs.set("y_offset", prog.y_offset);
          step.attrs.set("has_residual", int64_t(layer.residual ? 1 : 0));
          const rt::accel::InputTransform& t = layer.host;
          if (!t.identity()) {
            step.attrs.set("host_pads", std::vector<int64_t>{t.pad_top, t.pad_left, t.pad_bottom, t.pad_right});
            step.attrs.set("host_pad_value", int64_t(t.pad_value));
            if (t.im2col) step.attrs.set("host_im2col", std::vector<int64_t>{t.kh, t.kw, t.sh, t.sw});
          }
          step.attrs.set("macs", d.macs);
          d.offloaded = true;
        } catch (const DoesNotFit& e) {
          // A placement decision: the layer runs on the CPU, and says why.
          d.reason = e.what();
        } catch (const std::exception& e) {
          // Anything else (a token-check violation, an inconsistent plan) is
          // a bug that must not turn into a silent slowdown.
          throw std::runtime_error(node->describe() + ": internal error lowering it for the accelerator: " +
                                   e.what());
        }
      }
    } else {
      d.reason = "runs on the CPU";
    }
    if (!d.offloaded) {
      step = rt::ArtifactStep();
      step.name = node->name();
      step.kernel = rt::referenceKernelName(node->qualifiedOp());
      if (!kernels.find(step.kernel))
        throw std::runtime_error(node->describe() + ": target 'vdla' has no CPU kernel '" + step.kernel + "'");
      for (const ir::Value* in : node->inputs()) step.inputs.push_back(in ? idOf(in) : -1);
      for (const ir::Value* out : node->outputs()) step.outputs.push_back(idOf(out));
      step.attrs = node->attrs();
    }
    a.steps.push_back(std::move(step));
    if (decisions) decisions->push_back(std::move(d));
  }
  for (const ir::Value* v : graph.outputs()) a.outputs.push_back(idOf(v));
  a.blobs[rt::accel::kProgramsBlob] = rt::accel::serializeDeviceModule(module, cfg);
  a.blobs[rt::accel::kConstantsBlob] = std::move(constants);
  a.validate("lowering of graph '" + graph.name + "' for the accelerator");
  return a;
}

}  // namespace vdla::accel
