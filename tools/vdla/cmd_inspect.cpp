// vdla inspect MODEL|ARTIFACT: what a model or a compiled artifact holds.
// Models: inputs/outputs, operator histogram, parameters, a MAC estimate and,
// with --ir, the IR (--optimize runs the standard pipeline first). Artifacts:
// format version, target, config and hash, tensors, kernel histogram, blobs
// and, with --ir, the plan step by step.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.h"
#include "model_loading.h"
#include "vdla/compiler/ir/printer.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/artifact_signature.h"

namespace vdla::cli {

namespace {

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Multiply-accumulates of the operators that dominate a CNN; others count 0.
int64_t estimateMacs(const ir::Node& n) {
  auto shapeOf = [&](size_t i) -> const rt::Shape* {
    const ir::Value* v = n.input(i);
    return v && v->hasType() ? &v->type().shape : nullptr;
  };
  if (n.numOutputs() == 0 || !n.output(0)->hasType()) return 0;
  const int64_t out = n.output(0)->type().numElements();
  const std::string op = n.qualifiedOp();
  auto convMacs = [&](size_t w_index) -> int64_t {
    const rt::Shape* w = shapeOf(w_index);  // [Cout, Cin/group, kh, kw...]
    if (!w || w->size() < 2) return 0;
    int64_t per_output = 1;
    for (size_t d = 1; d < w->size(); ++d) per_output *= (*w)[d];
    return out * per_output;
  };
  auto matmulMacs = [&](size_t a_index) -> int64_t {
    const rt::Shape* a = shapeOf(a_index);
    if (!a || a->empty()) return 0;
    int64_t k = a->back();
    if (op == "Gemm" && n.attrs().getInt("transA", 0) && a->size() == 2) k = (*a)[0];
    return out * k;
  };
  if (op == "Conv" || op == "ConvInteger" || op == "ConvTranspose") return convMacs(1);
  if (op == "QLinearConv" || op == "com.microsoft.QLinearConv") return convMacs(3);
  if (op == "Gemm" || op == "MatMul" || op == "MatMulInteger" || op == "QLinearMatMul") return matmulMacs(0);
  return 0;
}

int inspectModel(const std::string& spec, ModelKind kind, const po::variables_map& vm) {
  std::unique_ptr<ir::Graph> graph = loadModelGraph(spec, kind, modelOptionsFrom(vm));
  if (vm.count("optimize")) runStandardPipeline(*graph, PipelineOptions{});
  std::map<std::string, int> histogram;
  int64_t macs = 0;
  for (const ir::Node* n : graph->nodes()) {
    ++histogram[n->qualifiedOp()];
    macs += estimateMacs(*n);
  }
  int64_t params = 0;
  for (const ir::Value* c : graph->constants()) params += c->constant().numElements();
  auto typeOf = [](const ir::Value* v) { return v->hasType() ? v->type().toString() : std::string("?"); };

  if (vm.count("json")) {
    nlohmann::json j{{"model", spec},
                     {"kind", modelKindName(kind)},
                     {"name", graph->name},
                     {"nodes", graph->numNodes()},
                     {"constants", graph->constants().size()},
                     {"parameters", params},
                     {"parameter_bytes", graph->constantBytes()},
                     {"macs", macs},
                     {"ops", histogram}};
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array();
    for (const ir::Value* v : graph->inputs()) ins.push_back({{"name", v->name()}, {"type", typeOf(v)}});
    for (const ir::Value* v : graph->outputs()) outs.push_back({{"name", v->name()}, {"type", typeOf(v)}});
    j["inputs"] = ins;
    j["outputs"] = outs;
    if (vm.count("ir")) j["ir"] = ir::graphToString(*graph);
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << spec << ": " << modelKindName(kind) << " '" << graph->name << "'\n";
  for (const ir::Value* v : graph->inputs()) std::cout << "  input  " << v->name() << ": " << typeOf(v) << "\n";
  for (const ir::Value* v : graph->outputs()) std::cout << "  output " << v->name() << ": " << typeOf(v) << "\n";
  std::cout << "  " << graph->numNodes() << " nodes, " << graph->constants().size() << " constants, "
            << formatCount(double(params)) << " parameters (" << formatBytes(double(graph->constantBytes())) << "), "
            << formatCount(double(macs)) << " MACs\n  operators:";
  for (const auto& [op, count] : histogram) std::cout << " " << op << " x" << count;
  std::cout << "\n";
  if (vm.count("ir")) ir::printGraph(std::cout, *graph);
  return 0;
}

// "" for an unsigned file, else the signer's public key (hex).
std::string signerOf(const std::string& path) {
  const std::vector<uint8_t> bytes = readFile(path);
  if (!rt::hasSignatureTrailer(bytes.data(), bytes.size())) return "";
  rt::PublicKey key;
  std::copy_n(bytes.end() - std::ptrdiff_t(rt::kSignatureTrailerBytes), key.size(), key.begin());
  return rt::publicKeyHex(key);
}

int inspectArtifact(const std::string& path, const po::variables_map& vm) {
  applyTrustOption(vm);
  rt::Artifact a = rt::loadArtifact(path);
  const std::string signer = signerOf(path);
  std::map<std::string, int> kernels;
  for (const auto& s : a.steps) ++kernels[s.kernel];
  size_t constants = 0;
  for (const auto& t : a.tensors) constants += t.isConstant();
  auto tensorRef = [&](int32_t id) { return id < 0 ? std::string("-") : "%" + a.tensors[id].name; };

  if (vm.count("json")) {
    nlohmann::json j{{"artifact", path},
                     {"format_version", a.format_version},
                     {"target", a.target},
                     {"model", a.model_name},
                     {"config", a.hw_config_name},
                     {"config_hash", hex64(a.hw_config_hash)},
                     {"tensors", a.tensors.size()},
                     {"constants", constants},
                     {"parameters", a.constantElements()},
                     {"parameter_bytes", a.constantBytes()},
                     {"steps", a.steps.size()},
                     {"kernels", kernels},
                     {"metadata", a.metadata},
                     {"signed_by", signer}};
    nlohmann::json ins = nlohmann::json::array(), outs = nlohmann::json::array(), blobs = nlohmann::json::array();
    for (int32_t id : a.inputs) ins.push_back({{"name", a.tensors[id].name}, {"type", a.tensors[id].type.toString()}});
    for (int32_t id : a.outputs)
      outs.push_back({{"name", a.tensors[id].name}, {"type", a.tensors[id].type.toString()}});
    for (const auto& [name, bytes] : a.blobs) blobs.push_back({{"name", name}, {"bytes", bytes.size()}});
    j["inputs"] = ins;
    j["outputs"] = outs;
    j["blobs"] = blobs;
    if (vm.count("ir")) {
      nlohmann::json steps = nlohmann::json::array();
      for (const auto& s : a.steps) {
        nlohmann::json attrs = nlohmann::json::object();
        for (const auto& [k, v] : s.attrs.all()) attrs[k] = rt::attributeToString(v);
        steps.push_back({{"kernel", s.kernel},
                         {"name", s.name},
                         {"inputs", s.inputs},
                         {"outputs", s.outputs},
                         {"attributes", attrs}});
      }
      j["plan"] = steps;
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << path << ": VDLA artifact, format version " << a.format_version << ", target " << a.target << "\n"
            << "  model '" << a.model_name << "', config " << a.hw_config_name << " (hash " << hex64(a.hw_config_hash)
            << ")\n"
            << "  " << (signer.empty() ? "unsigned" : "signed by key " + signer) << "\n";
  for (int32_t id : a.inputs)
    std::cout << "  input  " << a.tensors[id].name << ": " << a.tensors[id].type.toString() << "\n";
  for (int32_t id : a.outputs)
    std::cout << "  output " << a.tensors[id].name << ": " << a.tensors[id].type.toString() << "\n";
  std::cout << "  " << a.steps.size() << " steps, " << a.tensors.size() << " tensors (" << constants << " constant), "
            << formatCount(double(a.constantElements())) << " parameters (" << formatBytes(double(a.constantBytes()))
            << ")\n  kernels:";
  for (const auto& [k, count] : kernels) std::cout << " " << k << " x" << count;
  std::cout << "\n  blobs:";
  if (a.blobs.empty()) std::cout << " none";
  for (const auto& [name, bytes] : a.blobs)
    std::cout << " " << name << " (" << formatBytes(double(bytes.size())) << ")";
  std::cout << "\n";
  for (const auto& [k, v] : a.metadata) std::cout << "  " << k << ": " << v << "\n";
  if (vm.count("ir")) {
    for (size_t i = 0; i < a.steps.size(); ++i) {
      const auto& s = a.steps[i];
      std::ostringstream line;
      line << "  " << std::setw(4) << i << "  ";
      for (size_t k = 0; k < s.outputs.size(); ++k)
        line << (k ? ", " : "") << tensorRef(s.outputs[k]) << ": " << a.tensors[s.outputs[k]].type.toString();
      line << " = " << s.kernel << "(";
      for (size_t k = 0; k < s.inputs.size(); ++k) line << (k ? ", " : "") << tensorRef(s.inputs[k]);
      line << ")";
      if (!s.attrs.empty()) {
        line << " {";
        bool first = true;
        for (const auto& [k, v] : s.attrs.all()) {
          line << (first ? "" : ", ") << k << "=" << rt::attributeToString(v);
          first = false;
        }
        line << "}";
      }
      if (!s.name.empty()) line << "  # " << s.name;
      std::cout << line.str() << "\n";
    }
  }
  return 0;
}

}  // namespace

int inspectCommand(const std::vector<std::string>& args) {
  po::options_description options("vdla inspect options");
  options.add_options()("model", po::value<std::string>()->required(), "artifact, ONNX file or zoo model name")(
      "ir", "print the IR (models) or the plan step by step (artifacts)")(
      "optimize", "run the standard pass pipeline before reporting (models)")("json", "print the report as JSON");
  addModelOptions(options);
  addTrustOption(options);
  po::positional_options_description positional;
  positional.add("model", 1);
  po::variables_map vm;
  const std::string usage =
      "vdla inspect MODEL|ARTIFACT [--ir] [--optimize] [--json] [--batch N] [--image-size N] [--seed N]";
  if (!parseArgs(usage, args, options, positional, vm)) return 0;
  const std::string spec = vm["model"].as<std::string>();
  ModelKind kind = classifyModel(spec);
  if (kind != ModelKind::Zoo && modelOptionsGiven(vm))
    throw UsageError("--batch, --image-size and --seed apply to zoo models only\nusage: " + usage);
  if (kind == ModelKind::Artifact) return inspectArtifact(spec, vm);
  return inspectModel(spec, kind, vm);
}

}  // namespace vdla::cli
