// Compiled artifacts: what `vdla compile` writes and the runtime runs. An
// artifact is an execution plan (tensors, kernel steps in order, graph inputs
// and outputs), the target and hardware configuration it was compiled for, and
// named blobs that backends add (instruction streams, micro-op tables, object
// code, PTX). The file format is specified in docs/artifact.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/runtime/attributes.h"
#include "vdla/runtime/tensor.h"

namespace vdla::rt {

// Version of the file format this runtime writes and reads. Bump it on any
// incompatible change of docs/artifact.md.
constexpr uint32_t kArtifactFormatVersion = 4;
// The first 8 bytes of every artifact file.
constexpr char kArtifactMagic[8] = {'V', 'D', 'L', 'A', 'A', 'R', 'T', '\0'};

// Any problem with an artifact: a malformed or damaged file, an inconsistent
// plan, or an artifact that does not fit the device. Messages name the file.
class ArtifactError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ArtifactTensor {
  std::string name;
  TensorType type;
  // Constant data (weights); absent for graph inputs and step outputs.
  std::optional<Tensor> constant;

  bool isConstant() const { return constant.has_value(); }
};

struct ArtifactStep {
  std::string kernel;            // "ref.Conv"
  std::string name;              // the graph node's name, for diagnostics and profiles
  std::vector<int32_t> inputs;   // tensor ids; -1 for a missing optional input
  std::vector<int32_t> outputs;  // tensor ids
  AttributeMap attrs;
};

struct Artifact {
  uint32_t format_version = kArtifactFormatVersion;
  std::string target = "ref";  // "ref", later "vdla", "llvm", "cuda"
  std::string model_name;
  // The hardware configuration the artifact was compiled for; a vdla-target
  // artifact only runs on a device whose configuration hash is the same.
  std::string hw_config_name;
  uint64_t hw_config_hash = 0;
  // Free-form facts about the compilation ("producer", "compile_options", ...).
  std::map<std::string, std::string> metadata;

  std::vector<ArtifactTensor> tensors;  // a tensor's id is its index
  std::vector<ArtifactStep> steps;      // in execution order
  std::vector<int32_t> inputs;          // graph inputs, by tensor id
  std::vector<int32_t> outputs;         // graph outputs, by tensor id
  // Backend sections by name (instruction streams, micro-ops, object code).
  std::map<std::string, std::vector<uint8_t>> blobs;

  // Checks the plan: ids in range, constants with data of their type's size,
  // every step input defined before it is read, each tensor written once,
  // outputs defined. Throws ArtifactError prefixed with `source`.
  void validate(const std::string& source = "artifact") const;

  // Totals for reports.
  size_t constantBytes() const;
  int64_t constantElements() const;
};

// The file image of an artifact (validates it first).
std::vector<uint8_t> serializeArtifact(const Artifact& artifact);
// Parses and validates a file image; `source` names it in errors. Never reads
// outside [data, data + size); every problem is an ArtifactError.
Artifact deserializeArtifact(const uint8_t* data, size_t size, const std::string& source = "<memory>");
inline Artifact deserializeArtifact(const std::vector<uint8_t>& bytes, const std::string& source = "<memory>") {
  return deserializeArtifact(bytes.data(), bytes.size(), source);
}

void saveArtifact(const Artifact& artifact, const std::string& path);
Artifact loadArtifact(const std::string& path);

// True when the bytes start with the artifact magic (a cheap test to tell an
// artifact from a model file).
bool hasArtifactMagic(const uint8_t* data, size_t size);
bool isArtifactFile(const std::string& path);

// FNV-1a 64 over the bytes taken as little-endian 64-bit words (a final
// partial word is zero-padded): the artifact checksum, see docs/artifact.md.
uint64_t artifactChecksum(const uint8_t* data, size_t size);

}  // namespace vdla::rt
