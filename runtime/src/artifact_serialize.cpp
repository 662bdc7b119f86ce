// The artifact file format (docs/artifact.md): a 64-byte header, a table of
// named sections, and the sections, each 64-byte aligned. Reading checks every
// size against the bytes present before touching them.
#include <algorithm>
#include <cstdio>
#include <limits>

#include "artifact_format.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/artifact_signature.h"

namespace vdla::rt {

using namespace artifact_format;

namespace {

const char* const kMeta = "meta";
const char* const kTensors = "tensors";
const char* const kSteps = "steps";
const char* const kIo = "io";
const char* const kConstData = "constdata";

// ---------------------------------------------------------------- writing

void putType(Writer& w, const TensorType& type) {
  w.putU8(static_cast<uint8_t>(type.dtype));
  w.putU8(static_cast<uint8_t>(type.layout));
  w.putU8(0);
  w.putU8(0);
  w.putU32(static_cast<uint32_t>(type.shape.size()));
  for (int64_t d : type.shape) w.putI64(d);
}

void putAttribute(Writer& w, const std::string& name, const Attribute& a) {
  w.putString(name);
  w.putU8(static_cast<uint8_t>(a.index()));  // AttrKind follows the variant's order
  if (auto* i = std::get_if<int64_t>(&a)) {
    w.putI64(*i);
  } else if (auto* f = std::get_if<double>(&a)) {
    w.putF64(*f);
  } else if (auto* s = std::get_if<std::string>(&a)) {
    w.putString(*s);
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&a)) {
    w.putU32(static_cast<uint32_t>(is->size()));
    for (int64_t v : *is) w.putI64(v);
  } else if (auto* fs = std::get_if<std::vector<double>>(&a)) {
    w.putU32(static_cast<uint32_t>(fs->size()));
    for (double v : *fs) w.putF64(v);
  } else if (auto* t = std::get_if<Tensor>(&a)) {
    putType(w, t->type());
    w.putU64(t->byteSize());
    w.putBytes(t->raw(), t->byteSize());
  }
}

void putIds(Writer& w, const std::vector<int32_t>& ids) {
  w.putU32(static_cast<uint32_t>(ids.size()));
  for (int32_t id : ids) w.putI32(id);
}

// ---------------------------------------------------------------- reading

uint64_t checkedElements(Reader& r, const Shape& shape, DType dtype) {
  // Refuse element counts whose byte size overflows (a damaged dimension).
  const uint64_t limit = (uint64_t{1} << 62) / dtypeSize(dtype);
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) r.fail("negative dimension in shape " + shapeToString(shape));
    if (d != 0 && n > limit / static_cast<uint64_t>(d)) r.fail("shape " + shapeToString(shape) + " is too large");
    n *= static_cast<uint64_t>(d);
  }
  return n;
}

TensorType getType(Reader& r) {
  TensorType type;
  uint8_t dtype = r.getU8("element type");
  if (dtype > static_cast<uint8_t>(DType::Bool)) r.fail("unknown element type code " + std::to_string(dtype));
  type.dtype = static_cast<DType>(dtype);
  uint8_t layout = r.getU8("layout");
  if (layout > static_cast<uint8_t>(Layout::NHWC)) r.fail("unknown layout code " + std::to_string(layout));
  type.layout = static_cast<Layout>(layout);
  r.getU8("reserved byte");
  r.getU8("reserved byte");
  uint32_t rank = r.getU32("rank");
  if (rank > kMaxRank) r.fail("rank " + std::to_string(rank) + " is larger than " + std::to_string(kMaxRank));
  r.need(size_t{rank} * 8, "dimensions");
  for (uint32_t i = 0; i < rank; ++i) type.shape.push_back(r.getI64("dimension"));
  checkedElements(r, type.shape, type.dtype);
  return type;
}

Tensor makeTensor(Reader& r, const TensorType& type, const uint8_t* bytes, uint64_t size) {
  if (size != type.byteSize())
    r.fail("data of " + std::to_string(size) + " bytes for " + type.toString() + ", which needs " +
           std::to_string(type.byteSize()));
  Tensor t(type);
  if (size) std::memcpy(t.raw(), bytes, size);
  if (type.dtype == DType::Bool) {
    const uint8_t* p = static_cast<const uint8_t*>(t.raw());
    for (uint64_t i = 0; i < size; ++i)
      if (p[i] > 1) r.fail("bool tensor " + type.toString() + " holds byte value " + std::to_string(p[i]));
  }
  return t;
}

Attribute getAttribute(Reader& r) {
  uint8_t kind = r.getU8("attribute kind");
  switch (static_cast<AttrKind>(kind)) {
    case AttrKind::Int: return r.getI64("int attribute");
    case AttrKind::Float: return r.getF64("float attribute");
    case AttrKind::String: return r.getString("string attribute");
    case AttrKind::Ints: {
      uint32_t n = r.getCount("ints attribute length", 8);
      std::vector<int64_t> v(n);
      for (auto& x : v) x = r.getI64("ints attribute");
      return v;
    }
    case AttrKind::Floats: {
      uint32_t n = r.getCount("floats attribute length", 8);
      std::vector<double> v(n);
      for (auto& x : v) x = r.getF64("floats attribute");
      return v;
    }
    case AttrKind::Tensor: {
      TensorType type = getType(r);
      uint64_t size = r.getU64("tensor attribute size");
      if (size > r.remaining()) r.fail("truncated: tensor attribute of " + std::to_string(size) + " bytes");
      const uint8_t* bytes = r.getBytes(size, "tensor attribute data");
      return makeTensor(r, type, bytes, size);
    }
  }
  r.fail("unknown attribute kind code " + std::to_string(kind));
}

std::vector<int32_t> getIds(Reader& r, const char* what) {
  uint32_t n = r.getCount(what, 4);
  std::vector<int32_t> ids(n);
  for (auto& id : ids) id = r.getI32(what);
  return ids;
}

struct Section {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
};

}  // namespace

// ---------------------------------------------------------------- serialize

std::vector<uint8_t> serializeArtifact(const Artifact& a) {
  a.validate("serializeArtifact");
  std::vector<std::pair<std::string, Writer>> sections;

  Writer meta;
  meta.putString(a.target);
  meta.putString(a.model_name);
  meta.putString(a.hw_config_name);
  meta.putU64(a.hw_config_hash);
  meta.putU32(static_cast<uint32_t>(a.metadata.size()));
  for (const auto& [k, v] : a.metadata) {
    meta.putString(k);
    meta.putString(v);
  }

  // Constant data offsets, each 64-byte aligned inside the constdata section.
  Writer tensors;
  tensors.putU32(static_cast<uint32_t>(a.tensors.size()));
  size_t const_size = 0;
  std::vector<size_t> const_offsets(a.tensors.size(), 0);
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const ArtifactTensor& t = a.tensors[i];
    tensors.putString(t.name);
    putType(tensors, t.type);
    tensors.putU8(t.isConstant() ? 1 : 0);
    if (t.isConstant()) {
      const_size = alignUp(const_size);
      const_offsets[i] = const_size;
      tensors.putU64(const_size);
      tensors.putU64(t.type.byteSize());
      const_size += t.type.byteSize();
    }
  }

  Writer steps;
  steps.putU32(static_cast<uint32_t>(a.steps.size()));
  for (const ArtifactStep& s : a.steps) {
    steps.putString(s.kernel);
    steps.putString(s.name);
    putIds(steps, s.inputs);
    putIds(steps, s.outputs);
    steps.putU32(static_cast<uint32_t>(s.attrs.size()));
    for (const auto& [name, value] : s.attrs.all()) putAttribute(steps, name, value);
  }

  Writer io;
  putIds(io, a.inputs);
  putIds(io, a.outputs);

  std::vector<std::pair<std::string, const Writer*>> small = {
      {kMeta, &meta}, {kTensors, &tensors}, {kSteps, &steps}, {kIo, &io}};
  const size_t section_count = small.size() + 1 + a.blobs.size();

  // Layout: header, section table, then each section at a 64-byte boundary.
  std::vector<Section> table;
  size_t offset = alignUp(kHeaderSize + section_count * kSectionEntrySize);
  auto place = [&](const std::string& name, size_t size) {
    table.push_back({name, offset, size});
    offset = alignUp(offset + size);
  };
  for (const auto& [name, w] : small) place(name, w->bytes.size());
  place(kConstData, const_size);
  for (const auto& [name, bytes] : a.blobs) place(kBlobPrefix + name, bytes.size());
  const size_t file_size = table.back().offset + table.back().size;

  std::vector<uint8_t> out(file_size, 0);
  auto at = [&](size_t pos, auto value) { std::memcpy(out.data() + pos, &value, sizeof(value)); };
  std::memcpy(out.data(), kArtifactMagic, sizeof(kArtifactMagic));
  at(8, uint32_t{kArtifactFormatVersion});
  at(12, uint32_t{kHeaderSize});
  at(16, uint64_t{file_size});
  at(32, static_cast<uint32_t>(section_count));
  at(40, uint64_t{kHeaderSize});
  for (size_t i = 0; i < table.size(); ++i) {
    size_t entry = kHeaderSize + i * kSectionEntrySize;
    std::memcpy(out.data() + entry, table[i].name.data(), table[i].name.size());
    at(entry + kSectionNameBytes, uint64_t{table[i].offset});
    at(entry + kSectionNameBytes + 8, uint64_t{table[i].size});
  }
  for (size_t i = 0; i < small.size(); ++i)
    if (!small[i].second->bytes.empty())
      std::memcpy(out.data() + table[i].offset, small[i].second->bytes.data(), small[i].second->bytes.size());
  const size_t const_base = table[small.size()].offset;
  for (size_t i = 0; i < a.tensors.size(); ++i)
    if (a.tensors[i].isConstant() && a.tensors[i].type.byteSize())
      std::memcpy(out.data() + const_base + const_offsets[i], a.tensors[i].constant->raw(),
                  a.tensors[i].type.byteSize());
  size_t b = small.size() + 1;
  for (const auto& [name, bytes] : a.blobs) {
    if (!bytes.empty()) std::memcpy(out.data() + table[b].offset, bytes.data(), bytes.size());
    ++b;
  }
  at(24, artifactChecksum(out.data() + kChecksumStart, file_size - kChecksumStart));
  return out;
}

// ---------------------------------------------------------------- deserialize

Artifact deserializeArtifact(const uint8_t* data, size_t size, const std::string& source) {
  // A deployment that trusts keys refuses what they did not sign before
  // reading anything else; a signature trailer is otherwise set aside.
  const TrustedKeys& trust = trustedKeys();
  if (!trust.empty()) verifyArtifactSignature(data, size, trust, source);
  size = artifactPayloadSize(data, size);
  Reader header(data, size, source + ": header");
  if (size == 0) throw ArtifactError(source + ": empty file, not a VDLA artifact");
  if (!hasArtifactMagic(data, size))
    throw ArtifactError(source + ": not a VDLA artifact (bad magic; expected the file to start with \"VDLAART\")");
  header.getBytes(sizeof(kArtifactMagic), "magic");
  uint32_t version = header.getU32("format version");
  if (version != kArtifactFormatVersion)
    throw ArtifactError(source + ": artifact format version " + std::to_string(version) +
                        " is not supported by this runtime (it reads version " +
                        std::to_string(kArtifactFormatVersion) + "); recompile the model");
  uint32_t header_size = header.getU32("header size");
  if (header_size != kHeaderSize) header.fail("header size " + std::to_string(header_size) + ", expected 64");
  uint64_t file_size = header.getU64("file size");
  if (file_size != size)
    throw ArtifactError(source + ": " +
                        (file_size > size
                             ? "truncated: the header says " + std::to_string(file_size) + " bytes but the file has " +
                                   std::to_string(size)
                             : "the header says " + std::to_string(file_size) + " bytes but the file has " +
                                   std::to_string(size) + " (trailing data)"));
  if (size < kHeaderSize) header.fail("truncated header");
  uint64_t checksum = header.getU64("checksum");
  uint64_t actual = artifactChecksum(data + kChecksumStart, size - kChecksumStart);
  if (checksum != actual) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "checksum mismatch (stored %016llx, computed %016llx)",
                  static_cast<unsigned long long>(checksum), static_cast<unsigned long long>(actual));
    throw ArtifactError(source + ": " + buf + ": the file is damaged");
  }
  uint32_t section_count = header.getU32("section count");
  header.getU32("reserved");
  uint64_t table_offset = header.getU64("section table offset");
  if (table_offset != kHeaderSize) header.fail("section table offset " + std::to_string(table_offset));
  if (section_count > (size - kHeaderSize) / kSectionEntrySize)
    header.fail("section count " + std::to_string(section_count) + " does not fit the file");

  // Section table: names unique, ranges aligned, inside the file, disjoint.
  std::map<std::string, Section> sections;
  std::vector<Section> ordered;
  const uint64_t data_start = alignUp(kHeaderSize + size_t{section_count} * kSectionEntrySize);
  for (uint32_t i = 0; i < section_count; ++i) {
    const uint8_t* entry = data + kHeaderSize + size_t{i} * kSectionEntrySize;
    const char* name_bytes = reinterpret_cast<const char*>(entry);
    size_t name_len = strnlen(name_bytes, kSectionNameBytes);
    std::string where = source + ": section table entry " + std::to_string(i);
    if (name_len == 0 || name_len == kSectionNameBytes) throw ArtifactError(where + ": bad section name");
    Section s;
    s.name.assign(name_bytes, name_len);
    std::memcpy(&s.offset, entry + kSectionNameBytes, 8);
    std::memcpy(&s.size, entry + kSectionNameBytes + 8, 8);
    where = source + ": section '" + s.name + "'";
    if (s.offset % kAlignment)
      throw ArtifactError(where + ": offset " + std::to_string(s.offset) + " is not 64-byte aligned");
    if (s.offset < data_start || s.offset > size || s.size > size - s.offset)
      throw ArtifactError(where + ": range [" + std::to_string(s.offset) + ", +" + std::to_string(s.size) +
                          ") is outside the file of " + std::to_string(size) + " bytes");
    bool known = s.name == kMeta || s.name == kTensors || s.name == kSteps || s.name == kIo || s.name == kConstData ||
                 (s.name.rfind(kBlobPrefix, 0) == 0 && s.name.size() > std::strlen(kBlobPrefix));
    if (!known) throw ArtifactError(where + ": unknown section");
    if (!sections.emplace(s.name, s).second) throw ArtifactError(where + ": appears twice");
    ordered.push_back(s);
  }
  std::sort(ordered.begin(), ordered.end(), [](const Section& x, const Section& y) { return x.offset < y.offset; });
  for (size_t i = 1; i < ordered.size(); ++i)
    if (ordered[i - 1].offset + ordered[i - 1].size > ordered[i].offset)
      throw ArtifactError(source + ": sections '" + ordered[i - 1].name + "' and '" + ordered[i].name + "' overlap");
  for (const char* required : {kMeta, kTensors, kSteps, kIo, kConstData})
    if (!sections.count(required)) throw ArtifactError(source + ": missing section '" + required + "'");

  auto reader = [&](const char* name) {
    const Section& s = sections.at(name);
    return Reader(data + s.offset, s.size, source + ": section '" + name + "'");
  };
  auto finish = [](Reader& r) {
    if (!r.atEnd()) r.fail(std::to_string(r.remaining()) + " unexpected bytes at the end of the section");
  };

  Artifact a;
  a.format_version = version;
  {
    Reader r = reader(kMeta);
    a.target = r.getString("target");
    a.model_name = r.getString("model name");
    a.hw_config_name = r.getString("hardware config name");
    a.hw_config_hash = r.getU64("hardware config hash");
    uint32_t n = r.getCount("metadata count", 8);
    for (uint32_t i = 0; i < n; ++i) {
      std::string k = r.getString("metadata key");
      a.metadata[k] = r.getString("metadata value");
    }
    finish(r);
  }
  {
    Reader r = reader(kTensors);
    const Section& cs = sections.at(kConstData);
    uint32_t n = r.getCount("tensor count", 13);
    if (n > static_cast<uint32_t>(std::numeric_limits<int32_t>::max())) r.fail("too many tensors");
    a.tensors.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      ArtifactTensor& t = a.tensors[i];
      t.name = r.getString("tensor name");
      t.type = getType(r);
      uint8_t has_data = r.getU8("constant flag");
      if (has_data > 1) r.fail("tensor " + std::to_string(i) + ": bad constant flag " + std::to_string(has_data));
      if (has_data) {
        uint64_t off = r.getU64("constant offset");
        uint64_t bytes = r.getU64("constant size");
        std::string what = "tensor " + std::to_string(i) + " '" + t.name + "' " + t.type.toString();
        if (off % kAlignment)
          r.fail(what + ": constant data offset " + std::to_string(off) + " is not 64-byte aligned");
        if (off > cs.size || bytes > cs.size - off)
          r.fail(what + ": constant data [" + std::to_string(off) + ", +" + std::to_string(bytes) +
                 ") is outside the constdata section of " + std::to_string(cs.size) + " bytes");
        if (bytes != t.type.byteSize())
          r.fail(what + ": constant data of " + std::to_string(bytes) + " bytes, but the shape needs " +
                 std::to_string(t.type.byteSize()));
        Tensor value = makeTensor(r, t.type, data + cs.offset + off, bytes);
        t.constant = std::move(value);
      }
    }
    finish(r);
  }
  {
    Reader r = reader(kSteps);
    uint32_t n = r.getCount("step count", 20);
    a.steps.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      ArtifactStep& s = a.steps[i];
      s.kernel = r.getString("kernel name");
      s.name = r.getString("step name");
      s.inputs = getIds(r, "step inputs");
      s.outputs = getIds(r, "step outputs");
      uint32_t na = r.getCount("attribute count", 5);
      for (uint32_t k = 0; k < na; ++k) {
        std::string name = r.getString("attribute name");
        if (s.attrs.has(name)) r.fail("step " + std::to_string(i) + ": attribute '" + name + "' appears twice");
        s.attrs.set(name, getAttribute(r));
      }
    }
    finish(r);
  }
  {
    Reader r = reader(kIo);
    a.inputs = getIds(r, "graph inputs");
    a.outputs = getIds(r, "graph outputs");
    finish(r);
  }
  for (const Section& s : ordered)
    if (s.name.rfind(kBlobPrefix, 0) == 0)
      a.blobs[s.name.substr(std::strlen(kBlobPrefix))] =
          std::vector<uint8_t>(data + s.offset, data + s.offset + s.size);
  a.validate(source);
  return a;
}

}  // namespace vdla::rt
