#include "vdla/api/model_source.h"

#include <filesystem>

#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/frontend/onnx_importer.h"
#include "vdla/hw/error.h"
#include "vdla/runtime/artifact.h"

namespace vdla::api {

const char* modelKindName(ModelKind kind) {
  switch (kind) {
    case ModelKind::Artifact: return "artifact";
    case ModelKind::Onnx: return "ONNX model";
    case ModelKind::Zoo: return "zoo model";
  }
  return "?";
}

std::string zooModelList() {
  std::string names;
  for (const auto& n : zoo::modelNames()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

ModelKind classifyModel(const std::string& spec) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(spec, ec))
    return rt::isArtifactFile(spec) ? ModelKind::Artifact : ModelKind::Onnx;
  if (std::filesystem::exists(spec, ec)) throw Error(spec + ": not a regular file");
  if (zoo::isZooModel(spec)) return ModelKind::Zoo;
  throw Error(spec + ": no such file, and not a zoo model (zoo: " + zooModelList() + ")");
}

std::unique_ptr<ir::Graph> loadModelGraph(const std::string& spec, ModelKind kind, const ModelOptions& options) {
  switch (kind) {
    case ModelKind::Onnx: return frontend::importOnnxFile(spec);
    case ModelKind::Zoo: {
      if (options.batch < 1) throw Error(spec + ": batch must be at least 1, got " + std::to_string(options.batch));
      if (options.image_size < 1)
        throw Error(spec + ": image size must be at least 1, got " + std::to_string(options.image_size));
      zoo::ZooOptions z;
      z.batch = options.batch;
      z.image_size = options.image_size;
      z.seed = options.seed;
      try {
        return zoo::buildModel(spec, z);
      } catch (const std::invalid_argument& e) {
        throw Error(spec + ": " + e.what());
      }
    }
    case ModelKind::Artifact: break;
  }
  throw Error(spec + ": is a compiled artifact, not a model");
}

}  // namespace vdla::api
