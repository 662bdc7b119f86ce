// Models (ONNX files and zoo names), compilation and artifacts.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>
#include <nlohmann/json.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "bindings.h"
#include "handles.h"
#include "options.h"
#include "tensor_convert.h"
#include "vdla/api/calibration.h"
#include "vdla/api/compile_report.h"
#include "vdla/runtime/artifact_signature.h"
#include "vdla/compiler/ir/printer.h"
#include "vdla/hw/error.h"

namespace nb = nanobind;

namespace vdla::python {

namespace {

nlohmann::json tensorTypeJson(const std::string& name, const rt::TensorType& t) {
  return {{"name", name}, {"dtype", numpyDtypeName(t.dtype)}, {"shape", t.shape}};
}

nlohmann::json artifactIoJson(const rt::Artifact& a, const std::vector<int32_t>& ids) {
  nlohmann::json list = nlohmann::json::array();
  for (int32_t id : ids) list.push_back(tensorTypeJson(a.tensors.at(size_t(id)).name, a.tensors.at(size_t(id)).type));
  return list;
}

nlohmann::json graphIoJson(const std::vector<ir::Value*>& values) {
  nlohmann::json list = nlohmann::json::array();
  for (const ir::Value* v : values)
    list.push_back(v->hasType() ? tensorTypeJson(v->name(), v->type()) : nlohmann::json{{"name", v->name()}});
  return list;
}

std::shared_ptr<ArtifactHandle> compileModel(ModelHandle& model, const std::string& options_json,
                                             const std::vector<std::vector<rt::Tensor>>& calibration,
                                             const std::string& calibration_dir, int calibration_count) {
  if (model.kind == api::ModelKind::Artifact) throw Error(model.spec + ": is already a compiled artifact");
  CompileOptions copts = compileOptionsFromJson(nlohmann::json::parse(options_json));
  std::unique_ptr<ir::Graph> graph = model.freshGraph();
  copts.calibration = calibration;
  if (!calibration_dir.empty()) {
    if (!calibration.empty()) throw Error("compile: give calibration samples or a directory of images, not both");
    copts.calibration = api::calibrationFromImages(calibration_dir, calibration_count, *graph);
  }
  auto handle = std::make_shared<ArtifactHandle>();
  CompileReport report;
  handle->artifact = compileGraph(*graph, copts, &report);
  handle->artifact.metadata["source"] = model.spec;
  handle->artifact.metadata["source_kind"] = api::modelKindName(model.kind);
  handle->kernels = report.kernels;
  handle->report_json = api::compileReportJson(report, handle->artifact).dump();
  return handle;
}

}  // namespace

void bindModel(nb::module_& m) {
  nb::class_<ModelHandle>(m, "Model", "A network: an ONNX file or a zoo model (see vdla.load).")
      .def_ro("spec", &ModelHandle::spec)
      .def_prop_ro("kind", [](const ModelHandle& h) { return std::string(api::modelKindName(h.kind)); })
      .def(
          "io_json",
          [](ModelHandle& h) {
            const ir::Graph& g = h.inspected();
            return nlohmann::json{{"inputs", graphIoJson(g.inputs())}, {"outputs", graphIoJson(g.outputs())}}.dump();
          },
          "Inputs and outputs (name, dtype, shape) as JSON.")
      .def(
          "summary_json",
          [](ModelHandle& h) {
            const ir::Graph& g = h.inspected();
            std::map<std::string, int> ops;
            for (const ir::Node* n : g.nodes()) ++ops[n->qualifiedOp()];
            return nlohmann::json{{"nodes", g.numNodes()}, {"operators", ops}, {"constant_bytes", g.constantBytes()}}
                .dump();
          },
          "Node count, operator histogram and parameter bytes as JSON.")
      .def(
          "ir",
          [](ModelHandle& h) {
            std::ostringstream out;
            ir::printGraph(out, h.inspected());
            return out.str();
          },
          "The graph in the IR's text form, as imported.");

  m.def(
      "load_model",
      [](const std::string& spec, const std::string& options_json) {
        auto h = std::make_unique<ModelHandle>();
        h->spec = spec;
        h->kind = api::classifyModel(spec);
        if (h->kind == api::ModelKind::Artifact)
          throw Error(spec + ": is a compiled artifact; load it with load_artifact");
        h->options = modelOptionsFromJson(nlohmann::json::parse(options_json));
        if (h->kind == api::ModelKind::Onnx && options_json != "{}")
          throw Error(spec + ": batch, image_size and seed apply to zoo models only");
        h->inspected();  // load now, so that a bad file fails here
        return h;
      },
      nb::arg("spec"), nb::arg("options_json") = "{}", "An ONNX file or zoo model, loaded once to check it.");
  m.def(
      "model_kind", [](const std::string& spec) { return std::string(api::modelKindName(api::classifyModel(spec))); },
      nb::arg("spec"), "'artifact', 'ONNX model' or 'zoo model'.");
  m.def(
      "zoo_models", []() { return api::zooModelList(); }, "The zoo's model names, comma-separated.");

  nb::class_<ArtifactHandle>(m, "Artifact", "A compiled model (see vdla.compile and vdla.load).")
      .def_prop_ro("target", [](const ArtifactHandle& h) { return h.artifact.target; })
      .def_prop_ro("config_name", [](const ArtifactHandle& h) { return h.artifact.hw_config_name; })
      .def_prop_ro("config_hash",
                   [](const ArtifactHandle& h) {
                     char buf[17];
                     std::snprintf(buf, sizeof buf, "%016llx",
                                   static_cast<unsigned long long>(h.artifact.hw_config_hash));
                     return std::string(buf);
                   })
      .def_prop_ro(
          "in_process_code", [](const ArtifactHandle& h) { return h.kernels != nullptr; },
          "True when its CPU code was JIT-compiled in this process (it cannot be saved).")
      .def_ro("report_json", &ArtifactHandle::report_json)
      .def(
          "info_json",
          [](const ArtifactHandle& h) {
            const rt::Artifact& a = h.artifact;
            nlohmann::json steps = nlohmann::json::array();
            for (const auto& s : a.steps) steps.push_back({{"name", s.name}, {"kernel", s.kernel}});
            nlohmann::json blobs = nlohmann::json::object();
            for (const auto& [name, bytes] : a.blobs) blobs[name] = bytes.size();
            return nlohmann::json{{"target", a.target},
                                  {"config", a.hw_config_name},
                                  {"inputs", artifactIoJson(a, a.inputs)},
                                  {"outputs", artifactIoJson(a, a.outputs)},
                                  {"steps", steps},
                                  {"parameters", a.constantElements()},
                                  {"parameter_bytes", a.constantBytes()},
                                  {"blobs", blobs},
                                  {"metadata", a.metadata}}
                .dump();
          },
          "Inputs, outputs, steps, parameters and metadata as JSON.")
      .def(
          "save",
          [](const ArtifactHandle& h, const std::string& path) {
            if (h.kernels)
              throw Error(path +
                          ": this artifact's CPU code was JIT-compiled into this process; compile with "
                          "library='host' to save it");
            rt::saveArtifact(h.artifact, path);
          },
          nb::arg("path"), "Writes the artifact file.")
      .def(
          "to_bytes",
          [](const ArtifactHandle& h) {
            if (h.kernels)
              throw Error(
                  "this artifact's CPU code was JIT-compiled into this process; compile with library='host' "
                  "to move it to another process");
            const std::vector<uint8_t> bytes = rt::serializeArtifact(h.artifact);
            return nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
          },
          "The artifact file's bytes (for pickling and Ray).");

  m.def(
      "load_artifact",
      [](const std::string& path) {
        auto h = std::make_shared<ArtifactHandle>();
        h->artifact = rt::loadArtifact(path);
        return h;
      },
      nb::arg("path"), "Reads an artifact file.");
  m.def(
      "artifact_from_bytes",
      [](const nb::bytes& data) {
        auto h = std::make_shared<ArtifactHandle>();
        h->artifact = rt::deserializeArtifact(reinterpret_cast<const uint8_t*>(data.c_str()), data.size(), "<bytes>");
        return h;
      },
      nb::arg("data"), "An artifact from the bytes to_bytes gave.");
  m.def(
      "compile",
      [](ModelHandle& model, const std::string& options_json, const std::vector<std::vector<InArray>>& calibration,
         const std::string& calibration_dir, int calibration_count) {
        std::vector<std::vector<rt::Tensor>> samples;
        for (size_t s = 0; s < calibration.size(); ++s) {
          samples.emplace_back();
          for (size_t i = 0; i < calibration[s].size(); ++i)
            samples.back().push_back(tensorFromArray(
                calibration[s][i], "calibration sample " + std::to_string(s) + " input " + std::to_string(i)));
        }
        nb::gil_scoped_release release;
        return compileModel(model, options_json, samples, calibration_dir, calibration_count);
      },
      nb::arg("model"), nb::arg("options_json"), nb::arg("calibration"), nb::arg("calibration_dir"),
      nb::arg("calibration_count"), "Compiles a model (options as JSON; see vdla.compile).");
  m.def(
      "save_signed",
      [](const ArtifactHandle& h, const std::string& path, const std::string& key_path) {
        if (h.kernels)
          throw Error(path +
                      ": this artifact's CPU code was JIT-compiled into this process; compile with "
                      "library='host' to save it");
        const std::vector<uint8_t> bytes = rt::serializeArtifact(h.artifact);
        const std::vector<uint8_t> signed_bytes =
            rt::signArtifactBytes(bytes.data(), bytes.size(), rt::loadSecretKey(key_path));
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(signed_bytes.data()), std::streamsize(signed_bytes.size()));
        if (!out) throw Error(path + ": cannot write the signed artifact");
      },
      nb::arg("artifact"), nb::arg("path"), nb::arg("key"), "Writes the artifact signed with a secret key file.");
  m.def(
      "keygen",
      [](const std::string& stem) {
        const rt::KeyPair keys = rt::generateKeyPair();
        rt::saveKeyPair(keys, stem);
        return rt::publicKeyHex(keys.public_key);
      },
      nb::arg("stem"), "Writes STEM.key and STEM.pub (Ed25519); returns the public key in hex.");
  m.def(
      "set_trusted_keys",
      [](const std::string& directory) {
        rt::setTrustedKeys(directory.empty() ? rt::TrustedKeys{} : rt::loadTrustedKeys(directory));
      },
      nb::arg("directory"), "Refuse artifacts not signed by a key (*.pub) of the directory; '' trusts everything.");
  m.def("compile_targets", &compileTargets, "Every compile target's name.");
  m.def("is_target_available", &isTargetAvailable, nb::arg("target"), "Whether this build can compile for a target.");
  m.def(
      "target_stages",
      [](const std::string& target) {
        const Target* t = findTarget(target);
        if (!t) throw std::invalid_argument("unknown target '" + target + "'");
        return t->stageNames();
      },
      nb::arg("target"), "A target's stages, in the order they run after the graph passes.");
}

}  // namespace vdla::python
