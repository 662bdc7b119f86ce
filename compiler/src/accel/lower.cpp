#include "vdla/compiler/accel/lower.h"

#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "vdla/compiler/accel/arena_plan.h"
#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/layer_form.h"
#include "vdla/compiler/accel/token_check.h"
#include "vdla/runtime/accel/device_program.h"
#include "vdla/runtime/accel/device_session.h"
#include "vdla/runtime/accel/packed_layout.h"
#include "vdla/runtime/kernels/reference_kernels.h"

namespace vdla::accel {

namespace {

// An offloaded convolution on its way to a program.
struct Offload {
  LayerForm form;  // form.layer: the layer the program runs (direct or im2col)
  // Whether the input and the residual are read where an offloaded layer
  // wrote them, and whether the output must go to the host.
  bool x_resident = false, r_resident = false, y_to_host = false;
  ArenaPlacement placement;
};

bool sameGeometry(const rt::accel::PackedGeometry& a, const rt::accel::PackedGeometry& b) {
  return a.n == b.n && a.c == b.c && a.h == b.h && a.w == b.w && a.batch == b.batch && a.block == b.block;
}

}  // namespace

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

  // ---- 1. Where each node runs: the form of every convolution the
  // accelerator takes, the reason for every one it does not.
  const std::vector<ir::Node*> nodes = graph.nodes();
  std::vector<LayerDecision> decided(nodes.size());
  std::vector<std::optional<Offload>> offload(nodes.size());
  std::unordered_map<const ir::Value*, size_t> offloaded_producer;  // an offloaded layer's output -> its step
  for (size_t s = 0; s < nodes.size(); ++s) {
    const ir::Node* node = nodes[s];
    LayerDecision& d = decided[s];
    d.name = node->name();
    d.op = node->qualifiedOp();
    if (node->input(0) && node->input(0)->hasType()) d.input_shape = node->input(0)->type().toString();
    d.output_shape = node->output(0)->type().toString();
    if (d.op != "vdla.QConv") {
      d.reason = "runs on the CPU";
      continue;
    }
    d.reason = whyNotOffloadable(*node);
    if (!d.reason.empty()) continue;
    try {
      const ConvLayer direct = convLayerFromNode(*node);
      d.macs = direct.macs();
      Offload o;
      o.form = chooseLayerForm(direct, cfg, options.latency_hiding, options.allow_im2col);
      // Code generation can still find the layer does not fit (a tile wholly
      // in the padding, too many micro-ops); it is generated again below at
      // its place in the arena, which changes addresses only.
      generateConvProgram(o.form.layer, o.form.plan, cfg, 0);
      d.plan = o.form.plan;
      d.estimate = o.form.estimate;
      d.im2col = o.form.im2col;
      d.offloaded = true;
      offload[s] = std::move(o);
      offloaded_producer[node->output(0)] = s;
    } catch (const DoesNotFit& e) {
      // A placement decision: the layer runs on the CPU, and says why.
      d.reason = e.what();
    } catch (const std::exception& e) {
      // Anything else is a bug that must not turn into a silent slowdown.
      throw std::runtime_error(node->describe() + ": internal error lowering it for the accelerator: " + e.what());
    }
  }

  // ---- 2. Which activations stay on the device. An offloaded layer reads
  // its input (or residual) where the offloaded layer producing it wrote it
  // when the packed layouts agree and the host has nothing to do to it on the
  // way (no host padding or im2col). A layer's output goes to the host only
  // when something there reads it: a CPU step, the graph's outputs, or a
  // layer whose input the host transforms.
  auto packed = [&](const ConvLayer& L, bool output) {
    return output ? rt::accel::packedGeometry({L.n, L.o, L.oh, L.ow}, cfg.batch, cfg.block_out)
                  : rt::accel::packedGeometry({L.n, L.c, L.h, L.w}, cfg.batch, cfg.block_in);
  };
  auto producerOf = [&](const ir::Value* v) -> std::optional<size_t> {
    auto it = v ? offloaded_producer.find(v) : offloaded_producer.end();
    return it == offloaded_producer.end() ? std::nullopt : std::optional<size_t>(it->second);
  };
  std::vector<int64_t> last_device_read(nodes.size(), -1);  // per producing step
  std::vector<char> read_on_host(nodes.size(), 0);
  for (size_t s = 0; s < nodes.size(); ++s) {
    const ir::Node* node = nodes[s];
    if (offload[s]) {
      Offload& o = *offload[s];
      const ConvLayer& L = o.form.layer;
      const std::optional<size_t> px = producerOf(node->input(0));
      if (px && L.host.identity() && sameGeometry(packed(L, false), packed(offload[*px]->form.layer, true))) {
        o.x_resident = true;
        last_device_read[*px] = int64_t(s);
      }
      if (L.residual) {
        const std::optional<size_t> pr = producerOf(node->input(5));
        if (pr && sameGeometry(packed(L, true), packed(offload[*pr]->form.layer, true))) {
          o.r_resident = true;
          last_device_read[*pr] = int64_t(s);
        }
      }
    }
    for (size_t i = 0; i < node->numInputs(); ++i) {
      const std::optional<size_t> p = producerOf(node->input(i));
      if (!p) continue;
      const bool on_device = offload[s] && ((i == 0 && offload[s]->x_resident) || (i == 5 && offload[s]->r_resident));
      if (!on_device) read_on_host[*p] = 1;
    }
  }
  for (const ir::Value* v : graph.outputs())
    if (const std::optional<size_t> p = producerOf(v)) read_on_host[*p] = 1;

  // ---- 3. The arena: every output from its layer to its last reader on the
  // device; every input and residual the host uploads for its layer alone.
  ArenaPlanner arena(kArenaAlign);
  for (size_t s = 0; s < nodes.size(); ++s) {
    if (!offload[s]) continue;
    Offload& o = *offload[s];
    const ConvLayer& L = o.form.layer;
    const ir::Node* node = nodes[s];
    o.y_to_host = read_on_host[s] != 0;
    o.placement.x_offset = o.x_resident ? offload[*producerOf(node->input(0))]->placement.y_offset
                                        : int64_t(arena.allocate(uint64_t(packed(L, false).bytes()), int64_t(s), int64_t(s)));
    if (L.residual)
      o.placement.r_offset = o.r_resident
                                 ? offload[*producerOf(node->input(5))]->placement.y_offset
                                 : int64_t(arena.allocate(uint64_t(packed(L, true).bytes()), int64_t(s), int64_t(s)));
    o.placement.y_offset = int64_t(arena.allocate(uint64_t(packed(L, true).bytes()), int64_t(s),
                                                  std::max<int64_t>(int64_t(s), last_device_read[s])));
  }

  // ---- 4. Programs and steps.
  rt::accel::DeviceModule module;
  module.io_bytes = arena.bytes();
  std::vector<uint8_t> constants;
  for (const ir::Value* v : graph.inputs()) a.inputs.push_back(idOf(v));
  for (size_t s = 0; s < nodes.size(); ++s) {
    const ir::Node* node = nodes[s];
    LayerDecision& d = decided[s];
    rt::ArtifactStep step;
    step.name = node->name();
    if (offload[s]) {
      const Offload& o = *offload[s];
      const ConvLayer& layer = o.form.layer;
      try {
        ConvProgram prog = generateConvProgram(layer, d.plan, cfg, constants.size(), o.placement);
        checkTokens(prog.program.insns, cfg, prog.program.name);
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
      if (layer.residual) step.inputs.push_back(idOf(node->input(5)));
      step.outputs.push_back(idOf(node->output(0)));
      step.attrs.set("program", static_cast<int64_t>(d.program));
      step.attrs.set("x_offset", o.placement.x_offset);
      step.attrs.set("r_offset", o.placement.r_offset);
      step.attrs.set("y_offset", o.placement.y_offset);
      step.attrs.set("has_residual", int64_t(layer.residual ? 1 : 0));
      step.attrs.set("x_resident", int64_t(o.x_resident ? 1 : 0));
      step.attrs.set("r_resident", int64_t(o.r_resident ? 1 : 0));
      step.attrs.set("y_to_host", int64_t(o.y_to_host ? 1 : 0));
      const rt::accel::InputTransform& t = layer.host;
      if (!t.identity()) {
        step.attrs.set("host_pads", std::vector<int64_t>{t.pad_top, t.pad_left, t.pad_bottom, t.pad_right});
        step.attrs.set("host_pad_value", int64_t(t.pad_value));
        if (t.im2col) step.attrs.set("host_im2col", std::vector<int64_t>{t.kh, t.kw, t.sh, t.sw});
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
    if (decisions) decisions->push_back(std::move(d));
  }
  for (const ir::Value* v : graph.outputs()) a.outputs.push_back(idOf(v));
  a.blobs[rt::accel::kProgramsBlob] = rt::accel::serializeDeviceModule(module, cfg);
  a.blobs[rt::accel::kConstantsBlob] = std::move(constants);
  a.validate("lowering of graph '" + graph.name + "' for the accelerator");
  return a;
}

}  // namespace vdla::accel
