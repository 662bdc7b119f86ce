// Artifact files: round trips of every dtype, attribute kind and blob, the
// documented layout, and damaged files (truncated, bit-flipped, inconsistent
// with a valid checksum), which must all be refused with an ArtifactError.
#include "vdla/runtime/artifact.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

namespace vdla::rt {
namespace {

template <typename T>
Tensor ramp(Shape shape) {
  Tensor t(dtypeOf<T>(), std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if constexpr (std::is_same_v<T, bool>)
      t.data<bool>()[i] = (i % 3) == 0;
    else if constexpr (std::is_same_v<T, float>)
      t.data<float>()[i] = 0.25f * static_cast<float>(i) - 3.0f;
    else
      t.data<T>()[i] = static_cast<T>(i * 7 - 5);
  }
  return t;
}

ArtifactTensor constant(const std::string& name, Tensor t) {
  ArtifactTensor a;
  a.name = name;
  a.type = t.type();
  a.constant = std::move(t);
  return a;
}

ArtifactTensor value(const std::string& name, TensorType type) {
  ArtifactTensor a;
  a.name = name;
  a.type = std::move(type);
  return a;
}

// An artifact using every element type, every attribute kind, a missing
// optional input, metadata and blobs (the plan need not make sense to a kernel).
Artifact sampleArtifact() {
  Artifact a;
  a.target = "ref";
  a.model_name = "sample";
  a.hw_config_name = "pynq";
  a.hw_config_hash = 0x0123456789abcdefull;
  a.metadata = {{"producer", "test"}, {"empty", ""}};
  a.tensors.push_back(value("x", TensorType{DType::F32, {2, 3}, Layout::NCHW}));      // 0
  a.tensors.push_back(constant("w_f32", ramp<float>({2, 3})));                        // 1
  a.tensors.push_back(constant("w_i8", ramp<int8_t>({5})));                           // 2
  a.tensors.push_back(constant("w_u8", ramp<uint8_t>({3, 1, 2})));                    // 3
  a.tensors.push_back(constant("w_i32", ramp<int32_t>({4})));                         // 4
  a.tensors.push_back(constant("w_i64", ramp<int64_t>({2, 2})));                      // 5
  a.tensors.push_back(constant("w_bool", ramp<bool>({7})));                           // 6
  a.tensors.push_back(constant("scalar", Tensor::scalar<float>(1.5f)));               // 7
  a.tensors.push_back(constant("empty", Tensor(DType::F32, {0, 4})));                 // 8
  a.tensors.push_back(value("y", TensorType{DType::F32, {2, 3}, Layout::RowMajor}));  // 9
  a.tensors.push_back(value("z", TensorType{DType::I64, {}, Layout::RowMajor}));      // 10
  a.inputs = {0};
  ArtifactStep s1;
  s1.kernel = "ref.Add";
  s1.name = "add";
  s1.inputs = {0, 1, -1, 2, 3, 4, 5, 6, 7, 8};
  s1.outputs = {9};
  s1.attrs.set("int", int64_t{-42});
  s1.attrs.set("int_max", std::numeric_limits<int64_t>::max());
  s1.attrs.set("float", 0.1);
  s1.attrs.set("float_inf", -std::numeric_limits<double>::infinity());
  s1.attrs.set("string", std::string("Relu"));
  s1.attrs.set("string_empty", std::string());
  s1.attrs.set("ints", std::vector<int64_t>{1, -2, 3});
  s1.attrs.set("ints_empty", std::vector<int64_t>{});
  s1.attrs.set("floats", std::vector<double>{0.5, -1e300, 3.25});
  s1.attrs.set("tensor_f32", ramp<float>({2, 2}));
  s1.attrs.set("tensor_i8", ramp<int8_t>({3}));
  s1.attrs.set("tensor_u8", ramp<uint8_t>({1}));
  s1.attrs.set("tensor_i32", ramp<int32_t>({2, 1, 1}));
  s1.attrs.set("tensor_i64", Tensor::scalar<int64_t>(-9));
  s1.attrs.set("tensor_bool", ramp<bool>({4}));
  s1.attrs.set("tensor_empty", Tensor(DType::I32, {0}));
  ArtifactStep s2;
  s2.kernel = "ref.Size";
  s2.name = "";
  s2.inputs = {9};
  s2.outputs = {10};
  a.steps = {s1, s2};
  a.outputs = {10, 9};
  a.blobs["instructions"] = {1, 2, 3, 4, 5};
  a.blobs["empty"] = {};
  a.blobs["uops"] = std::vector<uint8_t>(1000, 0xab);
  return a;
}

void expectSameTensor(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.type(), b.type()) << what;
  EXPECT_EQ(a.type().layout, b.type().layout) << what;
  ASSERT_EQ(a.byteSize(), b.byteSize()) << what;
  if (a.byteSize()) {
    EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.byteSize()), 0) << what;
  }
}

void expectSameAttribute(const Attribute& a, const Attribute& b, const std::string& what) {
  ASSERT_EQ(a.index(), b.index()) << what;
  if (auto* t = std::get_if<Tensor>(&a)) {
    expectSameTensor(*t, std::get<Tensor>(b), what);
  } else if (auto* f = std::get_if<double>(&a)) {
    EXPECT_EQ(std::memcmp(f, &std::get<double>(b), 8), 0) << what;  // bit-exact
  } else if (auto* i = std::get_if<int64_t>(&a)) {
    EXPECT_EQ(*i, std::get<int64_t>(b)) << what;
  } else if (auto* str = std::get_if<std::string>(&a)) {
    EXPECT_EQ(*str, std::get<std::string>(b)) << what;
  } else if (auto* is = std::get_if<std::vector<int64_t>>(&a)) {
    EXPECT_EQ(*is, std::get<std::vector<int64_t>>(b)) << what;
  } else if (auto* fs = std::get_if<std::vector<double>>(&a)) {
    EXPECT_EQ(*fs, std::get<std::vector<double>>(b)) << what;
  }
}

void expectSameArtifact(const Artifact& a, const Artifact& b) {
  EXPECT_EQ(a.format_version, b.format_version);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.model_name, b.model_name);
  EXPECT_EQ(a.hw_config_name, b.hw_config_name);
  EXPECT_EQ(a.hw_config_hash, b.hw_config_hash);
  EXPECT_EQ(a.metadata, b.metadata);
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const auto& x = a.tensors[i];
    const auto& y = b.tensors[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.type, y.type) << x.name;
    EXPECT_EQ(x.type.layout, y.type.layout) << x.name;
    ASSERT_EQ(x.isConstant(), y.isConstant()) << x.name;
    if (x.isConstant()) expectSameTensor(*x.constant, *y.constant, x.name);
  }
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    const auto& x = a.steps[i];
    const auto& y = b.steps[i];
    EXPECT_EQ(x.kernel, y.kernel);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.outputs, y.outputs);
    ASSERT_EQ(x.attrs.size(), y.attrs.size());
    for (const auto& [name, attr] : x.attrs.all()) {
      ASSERT_TRUE(y.attrs.has(name)) << name;
      expectSameAttribute(attr, *y.attrs.find(name), x.kernel + " attribute " + name);
    }
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
  EXPECT_EQ(a.blobs, b.blobs);
}

template <typename T>
T readAt(const std::vector<uint8_t>& bytes, size_t pos) {
  T v;
  std::memcpy(&v, bytes.data() + pos, sizeof(T));
  return v;
}

template <typename T>
void writeAt(std::vector<uint8_t>& bytes, size_t pos, T v) {
  std::memcpy(bytes.data() + pos, &v, sizeof(T));
}

// Recomputes the checksum so that a deliberate change reaches the structural checks.
void rechecksum(std::vector<uint8_t>& bytes) {
  writeAt<uint64_t>(bytes, 24, artifactChecksum(bytes.data() + 32, bytes.size() - 32));
}

struct SectionEntry {
  std::string name;
  uint64_t offset, size;
  size_t entry_pos;
};

std::vector<SectionEntry> sectionTable(const std::vector<uint8_t>& bytes) {
  std::vector<SectionEntry> out;
  uint32_t n = readAt<uint32_t>(bytes, 32);
  for (uint32_t i = 0; i < n; ++i) {
    size_t e = 64 + size_t{i} * 64;
    out.push_back(
        {std::string(reinterpret_cast<const char*>(&bytes[e]), strnlen(reinterpret_cast<const char*>(&bytes[e]), 48)),
         readAt<uint64_t>(bytes, e + 48), readAt<uint64_t>(bytes, e + 56), e});
  }
  return out;
}

SectionEntry section(const std::vector<uint8_t>& bytes, const std::string& name) {
  for (const auto& s : sectionTable(bytes))
    if (s.name == name) return s;
  ADD_FAILURE() << "no section " << name;
  return {};
}

// Expects an ArtifactError whose message contains every fragment.
template <typename F>
void expectArtifactError(F&& f, const std::vector<std::string>& fragments) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one mentioning '" << fragments.front() << "'";
  } catch (const ArtifactError& e) {
    for (const auto& frag : fragments) EXPECT_NE(std::string(e.what()).find(frag), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- round trips

TEST(Artifact, RoundTripEveryDtypeAttributeAndBlob) {
  Artifact a = sampleArtifact();
  std::vector<uint8_t> bytes = serializeArtifact(a);
  Artifact b = deserializeArtifact(bytes, "sample.vdla");
  expectSameArtifact(a, b);
  // Deterministic: the same artifact always gives the same bytes.
  EXPECT_EQ(serializeArtifact(b), bytes);
}

TEST(Artifact, RoundTripNaNFloatBitsExactly) {
  Artifact a = sampleArtifact();
  a.steps[0].attrs.set("nan", std::numeric_limits<double>::quiet_NaN());
  a.tensors[1].constant->data<float>()[0] = -std::numeric_limits<float>::quiet_NaN();
  Artifact b = deserializeArtifact(serializeArtifact(a));
  expectSameArtifact(a, b);
}

TEST(Artifact, RoundTripManySmallTensors) {
  // The smallest tensor entry (no name, a scalar, no data) is 13 bytes.
  Artifact a = sampleArtifact();
  for (int i = 0; i < 1000; ++i) a.tensors.push_back(value("", TensorType{DType::U8, {}, Layout::RowMajor}));
  expectSameArtifact(a, deserializeArtifact(serializeArtifact(a)));
}

TEST(Artifact, SaveAndLoadFile) {
  const std::string path = ::testing::TempDir() + "/artifact_test_roundtrip.vdla";
  Artifact a = sampleArtifact();
  saveArtifact(a, path);
  EXPECT_TRUE(isArtifactFile(path));
  expectSameArtifact(a, loadArtifact(path));
  std::remove(path.c_str());
}

TEST(Artifact, LayoutFollowsTheSpecification) {
  std::vector<uint8_t> bytes = serializeArtifact(sampleArtifact());
  EXPECT_EQ(std::memcmp(bytes.data(), "VDLAART\0", 8), 0);
  EXPECT_EQ(readAt<uint32_t>(bytes, 8), kArtifactFormatVersion);
  EXPECT_EQ(readAt<uint32_t>(bytes, 12), 64u);
  EXPECT_EQ(readAt<uint64_t>(bytes, 16), bytes.size());
  EXPECT_EQ(readAt<uint64_t>(bytes, 24), artifactChecksum(bytes.data() + 32, bytes.size() - 32));
  EXPECT_EQ(readAt<uint64_t>(bytes, 40), 64u);
  std::vector<std::string> names;
  for (const auto& s : sectionTable(bytes)) {
    names.push_back(s.name);
    EXPECT_EQ(s.offset % 64, 0u) << s.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"meta", "tensors", "steps", "io", "constdata", "blob.empty",
                                             "blob.instructions", "blob.uops"}));
  // Every constant's data is in the constdata section at a 64-byte boundary of the file.
  SectionEntry cd = section(bytes, "constdata");
  Artifact a = sampleArtifact();
  for (const auto& t : a.tensors) {
    if (!t.isConstant() || t.type.byteSize() == 0) continue;
    bool found = false;
    for (uint64_t off = cd.offset; off + t.type.byteSize() <= cd.offset + cd.size; off += 64)
      found |= std::memcmp(bytes.data() + off, t.constant->raw(), t.type.byteSize()) == 0;
    EXPECT_TRUE(found) << t.name << " is not at a 64-byte aligned offset";
  }
  SectionEntry blob = section(bytes, "blob.instructions");
  EXPECT_EQ(blob.size, 5u);
  EXPECT_EQ(bytes[blob.offset + 4], 5);
}

TEST(Artifact, ChecksumIsWordwiseFnv1a) {
  // FNV-1a 64 over little-endian words: "a" zero-padded is the word 0x61.
  const uint8_t a[1] = {'a'};
  EXPECT_EQ(artifactChecksum(a, 1), (0xcbf29ce484222325ull ^ 0x61) * 0x100000001b3ull);
  EXPECT_EQ(artifactChecksum(nullptr, 0), 0xcbf29ce484222325ull);
}

// ---------------------------------------------------------------- damaged files

TEST(ArtifactCorruption, EveryTruncationIsRefused) {
  std::vector<uint8_t> bytes = serializeArtifact(sampleArtifact());
  for (size_t len = 0; len < bytes.size(); ++len) {
    try {
      deserializeArtifact(bytes.data(), len, "cut.vdla");
      ADD_FAILURE() << "a file cut to " << len << " bytes was accepted";
    } catch (const ArtifactError& e) {
      std::string msg = e.what();
      ASSERT_EQ(msg.rfind("cut.vdla: ", 0), 0u) << msg;
      if (len >= 24) {
        ASSERT_NE(msg.find("truncated"), std::string::npos) << len << ": " << msg;
      }
    }
  }
}

TEST(ArtifactCorruption, EveryBitFlipIsRefused) {
  const std::vector<uint8_t> good = serializeArtifact(sampleArtifact());
  std::vector<uint8_t> bytes = good;
  for (size_t i = 0; i < bytes.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      bytes[i] ^= uint8_t(1u << bit);
      try {
        deserializeArtifact(bytes, "flip.vdla");
        ADD_FAILURE() << "flipping bit " << bit << " of byte " << i << " was not detected";
      } catch (const ArtifactError& e) {
        ASSERT_EQ(std::string(e.what()).rfind("flip.vdla: ", 0), 0u) << e.what();
      }
      bytes[i] = good[i];
    }
}

TEST(ArtifactCorruption, ChecksumMismatchIsNamed) {
  std::vector<uint8_t> bytes = serializeArtifact(sampleArtifact());
  bytes[section(bytes, "constdata").offset] ^= 0x40;
  expectArtifactError([&] { deserializeArtifact(bytes, "m.vdla"); }, {"m.vdla: ", "checksum mismatch", "damaged"});
}

TEST(ArtifactCorruption, HeaderErrors) {
  std::vector<uint8_t> good = serializeArtifact(sampleArtifact());
  expectArtifactError([&] { deserializeArtifact(nullptr, 0, "e.vdla"); }, {"e.vdla: empty file"});
  std::vector<uint8_t> onnx = {0x08, 0x07, 0x12, 0x04, 'v', 'd', 'l', 'a'};
  expectArtifactError([&] { deserializeArtifact(onnx, "model.onnx"); }, {"model.onnx: not a VDLA artifact"});
  std::vector<uint8_t> v = good;
  writeAt<uint32_t>(v, 8, 99);
  expectArtifactError([&] { deserializeArtifact(v, "v.vdla"); },
                      {"v.vdla: artifact format version 99 is not supported"});
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  expectArtifactError([&] { deserializeArtifact(longer, "l.vdla"); }, {"trailing data"});
}

// Deliberate inconsistencies behind a valid checksum reach the structural checks.
TEST(ArtifactCorruption, StructuralErrorsBehindAValidChecksum) {
  const std::vector<uint8_t> good = serializeArtifact(sampleArtifact());
  {
    std::vector<uint8_t> b = good;
    SectionEntry s = section(b, "tensors");
    writeAt<uint64_t>(b, s.entry_pos + 48, s.offset + 8);  // misaligned section
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"section 'tensors'", "not 64-byte aligned"});
  }
  {
    std::vector<uint8_t> b = good;
    SectionEntry s = section(b, "steps");
    writeAt<uint64_t>(b, s.entry_pos + 56, b.size());  // runs past the end
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"section 'steps'", "outside the file"});
  }
  {
    std::vector<uint8_t> b = good;
    SectionEntry s = section(b, "io");
    std::memcpy(&b[s.entry_pos], "iox", 3);
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"section 'iox': unknown section"});
  }
  {
    std::vector<uint8_t> b = good;
    SectionEntry s = section(b, "tensors");
    writeAt<uint32_t>(b, s.offset, 0x7fffffff);  // absurd tensor count
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"section 'tensors'", "bad tensor count"});
  }
  {
    std::vector<uint8_t> b = good;
    SectionEntry s = section(b, "io");
    writeAt<int32_t>(b, s.offset + 4, 1000);  // graph input id out of range
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"x: graph input 0 is tensor 1000, out of range"});
  }
  {
    std::vector<uint8_t> b = good;
    SectionEntry s = section(b, "io");
    writeAt<int32_t>(b, s.offset + 4, 1);  // a constant as graph input
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"graph input 0 is constant tensor 1 'w_f32'"});
  }
  {
    std::vector<uint8_t> b = good;
    SectionEntry s = section(b, "meta");
    writeAt<uint32_t>(b, s.offset, 1000000);  // target string longer than the section
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"section 'meta'", "truncated: target"});
  }
  {
    std::vector<uint8_t> b = good;
    uint32_t n = readAt<uint32_t>(b, 32);
    for (uint32_t i = 1; i < n; ++i)  // duplicate section name
      if (sectionTable(b)[i].name == "io") std::memcpy(&b[64 + i * 64], "meta\0", 5);
    rechecksum(b);
    expectArtifactError([&] { deserializeArtifact(b, "x"); }, {"appears twice"});
  }
}

// Random byte damage behind a valid checksum: every outcome is a clean
// ArtifactError or a valid artifact, never a crash or another exception.
TEST(ArtifactCorruption, RandomDamageWithValidChecksum) {
  const std::vector<uint8_t> good = serializeArtifact(sampleArtifact());
  std::mt19937_64 rng(1234);
  int refused = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<uint8_t> b = good;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = 32 + rng() % (b.size() - 32);
      switch (rng() % 3) {
        case 0: b[pos] ^= uint8_t(1u << (rng() % 8)); break;
        case 1: b[pos] = uint8_t(rng()); break;
        default: b[pos] = (rng() & 1) ? 0xff : 0x00; break;
      }
    }
    rechecksum(b);
    try {
      Artifact a = deserializeArtifact(b, "fuzz");
      a.validate();
    } catch (const ArtifactError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 1000);
}

TEST(ArtifactFile, MissingEmptyAndWrongFiles) {
  const std::string dir = ::testing::TempDir();
  expectArtifactError([&] { loadArtifact(dir + "/no_such_artifact.vdla"); },
                      {"no_such_artifact.vdla: cannot open artifact file"});
  const std::string empty = dir + "/artifact_test_empty.vdla";
  std::ofstream(empty).close();
  expectArtifactError([&] { loadArtifact(empty); }, {"artifact_test_empty.vdla: empty file"});
  EXPECT_FALSE(isArtifactFile(empty));
  const std::string text = dir + "/artifact_test_text.vdla";
  std::ofstream(text) << "hello, world";
  expectArtifactError([&] { loadArtifact(text); }, {"artifact_test_text.vdla: not a VDLA artifact"});
  expectArtifactError([&] { loadArtifact(dir); }, {dir});
  expectArtifactError([&] { saveArtifact(sampleArtifact(), dir + "/no/such/dir/a.vdla"); }, {"cannot create"});
  std::remove(empty.c_str());
  std::remove(text.c_str());
}

// ---------------------------------------------------------------- plan checks

TEST(ArtifactValidate, RefusesInconsistentPlans) {
  {
    Artifact a = sampleArtifact();
    a.steps[1].inputs = {10};  // reads its own output
    expectArtifactError([&] { a.validate("p"); }, {"p: step 1 (ref.Size): input 0 is tensor 10 'z', which is neither"});
  }
  {
    Artifact a = sampleArtifact();
    a.steps[1].outputs = {9};  // written twice
    expectArtifactError([&] { a.validate("p"); }, {"step 1 (ref.Size): output 0 is tensor 9 'y', which already holds"});
  }
  {
    Artifact a = sampleArtifact();
    a.steps[0].outputs = {1};  // overwrites a constant
    expectArtifactError([&] { a.validate("p"); }, {"step 0 'add' (ref.Add): output 0 is tensor 1 'w_f32'"});
  }
  {
    Artifact a = sampleArtifact();
    a.steps[0].inputs[0] = -2;
    expectArtifactError([&] { a.validate("p"); }, {"step 0 'add' (ref.Add): input 0 is tensor -2, out of range"});
  }
  {
    Artifact a = sampleArtifact();
    a.steps.pop_back();  // output z never written
    expectArtifactError([&] { a.validate("p"); }, {"graph output 0 is tensor 10 'z', which nothing writes"});
  }
  {
    Artifact a = sampleArtifact();
    a.tensors[1].type.shape = {3, 2};
    expectArtifactError([&] { a.validate("p"); }, {"tensor 1 'w_f32' is declared f32[3,2] but its data is f32[2,3]"});
  }
  {
    Artifact a = sampleArtifact();
    a.steps[0].kernel.clear();
    expectArtifactError([&] { a.validate("p"); }, {"has no kernel name"});
  }
  {
    Artifact a = sampleArtifact();
    a.blobs[std::string(60, 'b')] = {1};
    expectArtifactError([&] { serializeArtifact(a); }, {"is longer than 42 characters"});
  }
  {
    Artifact a = sampleArtifact();
    a.outputs.clear();
    expectArtifactError([&] { a.validate("p"); }, {"no graph outputs"});
  }
}

TEST(ArtifactValidate, Totals) {
  Artifact a = sampleArtifact();
  EXPECT_EQ(a.constantElements(), 6 + 5 + 6 + 4 + 4 + 7 + 1 + 0);
  EXPECT_EQ(a.constantBytes(), 24u + 5 + 6 + 16 + 32 + 7 + 4 + 0);
}

}  // namespace
}  // namespace vdla::rt
