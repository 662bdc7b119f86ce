#pragma once
// Where a model comes from, as the `vdla` tool and the Python module name it:
// a compiled artifact (recognised by its magic), an ONNX file, or a zoo name.
#include <cstdint>
#include <memory>
#include <string>

#include "vdla/compiler/ir/graph.h"

namespace vdla::api {

enum class ModelKind { Artifact, Onnx, Zoo };
const char* modelKindName(ModelKind kind);  // "artifact", "ONNX model", "zoo model"

// Options that build a zoo model; ONNX models and artifacts have fixed shapes.
struct ModelOptions {
  int64_t batch = 1;
  int64_t image_size = 224;
  uint64_t seed = 0;
};

// Which kind `spec` names. An existing file is an artifact when it starts with
// the artifact magic and an ONNX model otherwise; a name that is no file must
// be a zoo model. Throws vdla::Error naming the spec and the zoo's models.
ModelKind classifyModel(const std::string& spec);

// Imports an ONNX file or builds a zoo model (not for artifacts). Throws
// vdla::Error naming the spec (and, for a zoo model, a bad option).
std::unique_ptr<ir::Graph> loadModelGraph(const std::string& spec, ModelKind kind, const ModelOptions& options);

// "resnet18, resnet34, ..."
std::string zooModelList();

}  // namespace vdla::api
