#include "external_data.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "import_limits.h"

namespace vdla::frontend::detail {
namespace {

namespace fs = std::filesystem;
using TP = onnx::TensorProto;

bool isExternal(const TP& t) { return t.data_location() == TP::EXTERNAL || t.external_data_size() > 0; }

// A non-negative integer value of an external_data entry.
int64_t parseSize(const std::string& text, const std::string& key, const std::string& where) {
  size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < 0)
    throw std::runtime_error(where + ": external_data '" + key + "' is not a non-negative integer: '" + text + "'");
  return v;
}

void load(TP& t, const fs::path& base, const std::string& source) {
  const std::string where = source + ": tensor '" + t.name() + "'";
  if (base.empty())
    throw std::runtime_error(where +
                             ": its data is stored in an external file, which needs the model's own "
                             "file to resolve against (import the model from its path)");
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    if (e.key() == "location")
      location = e.value();
    else if (e.key() == "offset")
      offset = parseSize(e.value(), "offset", where);
    else if (e.key() == "length")
      length = parseSize(e.value(), "length", where);
    // "checksum" and other keys carry nothing the import needs.
  }
  if (location.empty()) throw std::runtime_error(where + ": external data without a 'location'");
  const fs::path rel(location);
  if (rel.is_absolute())
    throw std::runtime_error(where + ": external data location '" + location +
                             "' is an absolute path; it must be relative to the model's folder");
  const fs::path root = fs::weakly_canonical(base);
  const fs::path file = fs::weakly_canonical(root / rel);
  const fs::path inside = file.lexically_relative(root);
  if (inside.empty() || *inside.begin() == "..")
    throw std::runtime_error(where + ": external data location '" + location + "' leaves the model's folder " +
                             root.string());
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec) throw std::runtime_error(where + ": cannot read external data file " + file.string() + ": " + ec.message());
  if (uintmax_t(offset) > size)
    throw std::runtime_error(where + ": external data offset " + std::to_string(offset) + " is past the end of " +
                             file.string() + " (" + std::to_string(size) + " bytes)");
  if (length < 0) length = int64_t(size - uintmax_t(offset));
  if (uintmax_t(offset) + uintmax_t(length) > size)
    throw std::runtime_error(where + ": external data [" + std::to_string(offset) + ", " +
                             std::to_string(offset + length) + ") lies outside " + file.string() + " (" +
                             std::to_string(size) + " bytes)");
  if (length > kMaxTensorBytes)
    throw std::runtime_error(where + ": external data of " + std::to_string(length) + " bytes is above the " +
                             std::to_string(kMaxTensorBytes) + "-byte limit of one tensor");
  std::string bytes(size_t(length), '\0');
  std::ifstream in(file, std::ios::binary);
  in.seekg(offset);
  if (!in.read(bytes.data(), length))
    throw std::runtime_error(where + ": cannot read " + std::to_string(length) + " bytes at offset " +
                             std::to_string(offset) + " of " + file.string());
  t.clear_external_data();
  t.set_data_location(TP::DEFAULT);
  t.set_raw_data(std::move(bytes));
}

// Loads `t` if it is stored externally; 1 if it was.
size_t loadIfExternal(TP& t, const fs::path& base, const std::string& source) {
  if (!isExternal(t)) return 0;
  load(t, base, source);
  return 1;
}

size_t loadGraph(onnx::GraphProto& g, const fs::path& base, const std::string& source);

size_t loadAttribute(onnx::AttributeProto& a, const fs::path& base, const std::string& source) {
  size_t n = 0;
  if (a.has_t()) n += loadIfExternal(*a.mutable_t(), base, source);
  for (TP& t : *a.mutable_tensors()) n += loadIfExternal(t, base, source);
  if (a.has_g()) n += loadGraph(*a.mutable_g(), base, source);
  for (onnx::GraphProto& sub : *a.mutable_graphs()) n += loadGraph(sub, base, source);
  return n;
}

size_t loadGraph(onnx::GraphProto& g, const fs::path& base, const std::string& source) {
  size_t n = 0;
  for (TP& t : *g.mutable_initializer()) n += loadIfExternal(t, base, source);
  for (onnx::NodeProto& node : *g.mutable_node())
    for (onnx::AttributeProto& a : *node.mutable_attribute()) n += loadAttribute(a, base, source);
  return n;
}

}  // namespace

size_t loadExternalData(onnx::ModelProto& model, const std::string& base_dir, const std::string& source) {
  if (!model.has_graph()) return 0;
  return loadGraph(*model.mutable_graph(), base_dir.empty() ? fs::path() : fs::path(base_dir), source);
}

}  // namespace vdla::frontend::detail
