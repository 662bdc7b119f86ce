#pragma once
// How the model commands (compile, run, inspect) find their model: a compiled
// artifact (recognised by its magic), an ONNX file, or a zoo name.
#include <cstdint>
#include <memory>
#include <string>

#include "cli.h"
#include "vdla/compiler/ir/graph.h"

namespace vdla::cli {

enum class ModelKind { Artifact, Onnx, Zoo };
const char* modelKindName(ModelKind kind);  // "artifact", "ONNX model", "zoo model"

// Options that build a zoo model; ONNX models and artifacts have fixed shapes.
struct ModelOptions {
  int64_t batch = 1;
  int64_t image_size = 224;
  uint64_t seed = 0;
};

// Adds --batch, --image-size and --seed.
void addModelOptions(po::options_description& options);
ModelOptions modelOptionsFrom(const po::variables_map& vm);
// True when any of them was given explicitly.
bool modelOptionsGiven(const po::variables_map& vm);

// Which kind `spec` names. An existing file is an artifact when it starts with
// the artifact magic and an ONNX model otherwise; a name that is no file must
// be a zoo model. Throws Error naming the spec and the zoo's models.
ModelKind classifyModel(const std::string& spec);

// Imports an ONNX file or builds a zoo model (not for artifacts).
std::unique_ptr<ir::Graph> loadModelGraph(const std::string& spec, ModelKind kind, const ModelOptions& options);

// "resnet18, resnet34, ..." (or a note that the zoo is not in this build).
std::string zooModelList();

}  // namespace vdla::cli

namespace vdla::cli {

// Compact figures for reports: "11.69M", "44.6 MiB", "123.4 ms".
std::string formatCount(double n);
std::string formatBytes(double bytes);
std::string formatSeconds(double seconds);

}  // namespace vdla::cli
