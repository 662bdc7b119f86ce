// The artifact's plan checks, checksum and file I/O. The byte format itself is
// in artifact_serialize.cpp.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <set>

#include "artifact_format.h"
#include "vdla/runtime/artifact.h"

namespace vdla::rt {

namespace {

std::string describeStep(const Artifact& a, size_t index) {
  const ArtifactStep& s = a.steps[index];
  return "step " + std::to_string(index) + (s.name.empty() ? "" : " '" + s.name + "'") + " (" +
         (s.kernel.empty() ? "no kernel" : s.kernel) + ")";
}

}  // namespace

void Artifact::validate(const std::string& source) const {
  auto fail = [&](const std::string& what) { throw ArtifactError(source + ": " + what); };
  const int64_t n = static_cast<int64_t>(tensors.size());
  if (target.empty()) fail("no target");

  for (size_t i = 0; i < tensors.size(); ++i) {
    const ArtifactTensor& t = tensors[i];
    std::string what = "tensor " + std::to_string(i) + " '" + t.name + "'";
    for (int64_t d : t.type.shape)
      if (d < 0) fail(what + " has a negative dimension in " + shapeToString(t.type.shape));
    if (t.constant) {
      if (t.constant->type() != t.type)
        fail(what + " is declared " + t.type.toString() + " but its data is " + t.constant->type().toString());
      if (t.constant->empty() && t.type.byteSize() != 0) fail(what + " is a constant without data");
    }
  }

  // Which tensors hold a value at each point of the plan.
  std::vector<char> defined(tensors.size(), 0);
  for (size_t i = 0; i < tensors.size(); ++i) defined[i] = tensors[i].isConstant();
  auto checkId = [&](int32_t id, const std::string& what) {
    if (id < 0 || id >= n)
      fail(what + " is tensor " + std::to_string(id) + ", out of range (the artifact has " + std::to_string(n) +
           " tensors)");
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string what = "graph input " + std::to_string(i);
    checkId(inputs[i], what);
    const ArtifactTensor& t = tensors[inputs[i]];
    if (t.isConstant()) fail(what + " is constant tensor " + std::to_string(inputs[i]) + " '" + t.name + "'");
    if (defined[inputs[i]]) fail(what + ": tensor " + std::to_string(inputs[i]) + " '" + t.name + "' is listed twice");
    defined[inputs[i]] = 1;
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    const ArtifactStep& step = steps[s];
    std::string what = describeStep(*this, s);
    if (step.kernel.empty()) fail(what + " has no kernel name");
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      int32_t id = step.inputs[k];
      if (id == -1) continue;
      checkId(id, what + ": input " + std::to_string(k));
      if (!defined[id])
        fail(what + ": input " + std::to_string(k) + " is tensor " + std::to_string(id) + " '" + tensors[id].name +
             "', which is neither a constant, a graph input nor written by an earlier step");
    }
    if (step.outputs.empty()) fail(what + " has no outputs");
    for (size_t k = 0; k < step.outputs.size(); ++k) {
      int32_t id = step.outputs[k];
      checkId(id, what + ": output " + std::to_string(k));
      if (defined[id])
        fail(what + ": output " + std::to_string(k) + " is tensor " + std::to_string(id) + " '" + tensors[id].name +
             "', which already holds a value (a constant, a graph input or an earlier step's output)");
      defined[id] = 1;
    }
  }
  if (outputs.empty()) fail("no graph outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string what = "graph output " + std::to_string(i);
    checkId(outputs[i], what);
    if (!defined[outputs[i]])
      fail(what + " is tensor " + std::to_string(outputs[i]) + " '" + tensors[outputs[i]].name +
           "', which nothing writes");
  }
  for (const auto& [name, bytes] : blobs) {
    if (name.empty()) fail("a blob has an empty name");
    if (name.size() + std::strlen(artifact_format::kBlobPrefix) >= artifact_format::kSectionNameBytes)
      fail("blob name '" + name + "' is longer than " +
           std::to_string(artifact_format::kSectionNameBytes - 1 - std::strlen(artifact_format::kBlobPrefix)) +
           " characters");
    if (name.find('\0') != std::string::npos) fail("blob name contains a NUL character");
  }
}

size_t Artifact::constantBytes() const {
  size_t total = 0;
  for (const auto& t : tensors)
    if (t.isConstant()) total += t.type.byteSize();
  return total;
}

int64_t Artifact::constantElements() const {
  int64_t total = 0;
  for (const auto& t : tensors)
    if (t.isConstant()) total += t.type.numElements();
  return total;
}

uint64_t artifactChecksum(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  constexpr uint64_t kPrime = 0x100000001b3ull;
  size_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = (h ^ w) * kPrime;
  }
  if (i < size) {
    uint64_t w = 0;
    std::memcpy(&w, data + i, size - i);
    h = (h ^ w) * kPrime;
  }
  return h;
}

bool hasArtifactMagic(const uint8_t* data, size_t size) {
  return size >= sizeof(kArtifactMagic) && std::memcmp(data, kArtifactMagic, sizeof(kArtifactMagic)) == 0;
}

bool isArtifactFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[sizeof(kArtifactMagic)];
  if (!in.read(magic, sizeof(magic))) return false;
  return hasArtifactMagic(reinterpret_cast<const uint8_t*>(magic), sizeof(magic));
}

void saveArtifact(const Artifact& artifact, const std::string& path) {
  std::vector<uint8_t> bytes = serializeArtifact(artifact);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw ArtifactError(path + ": cannot create artifact file (" + std::strerror(errno) + ")");
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw ArtifactError(path + ": cannot write artifact file (" + std::strerror(errno) + ")");
}

Artifact loadArtifact(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw ArtifactError(path + ": is a directory, not an artifact file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ArtifactError(path + ": cannot open artifact file (" + std::strerror(errno) + ")");
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw ArtifactError(path + ": cannot read artifact file (" + ec.message() + ")");
  std::vector<uint8_t> bytes(static_cast<size_t>(size));
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)))
    throw ArtifactError(path + ": cannot read artifact file (" + std::to_string(in.gcount()) + " of " +
                        std::to_string(size) + " bytes read)");
  return deserializeArtifact(bytes.data(), bytes.size(), path);
}

}  // namespace vdla::rt
