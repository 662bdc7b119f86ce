// Every class of bad input gives an OnnxImportError naming the file, the node
// (index, name, operator) when there is one, and the reason; never a crash or
// another exception type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "model_builder.h"
#include "vdla/frontend/onnx_importer.h"

namespace vdla::frontend {
namespace {

using testing::ModelBuilder;
using testing::setFloat;
using testing::setInt;
using testing::setInts;

// The importer's message for a model, or "" when it imports.
std::string importError(const std::string& bytes, const OnnxImportOptions& options = {}) {
  try {
    importOnnxBytes(bytes, "bad.onnx", options);
  } catch (const OnnxImportError& e) {
    return e.what();
  }
  return "";
}

std::string importError(const ModelBuilder& b, const OnnxImportOptions& options = {}) {
  return importError(b.bytes(), options);
}

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

ModelBuilder reluModel() {
  ModelBuilder b;
  b.input("x", {1, 4});
  b.floatInitializer("bias", {4}, {1, 2, 3, 4});
  b.node("Add", {"x", "bias"}, {"s"}, "add0");
  b.node("Relu", {"s"}, {"y"}, "relu0");
  b.output("y");
  return b;
}

TEST(OnnxImportErrors, EveryTruncationOfAValidModelIsRefusedCleanly) {
  const std::string bytes = reluModel().bytes();
  ASSERT_EQ(importError(bytes), "");
  int refused = 0;
  for (size_t len = 0; len < bytes.size(); ++len) {
    std::string err;
    EXPECT_NO_FATAL_FAILURE(err = importError(bytes.substr(0, len)));
    if (!err.empty()) {
      ++refused;
      EXPECT_CONTAINS(err, "bad.onnx: ");
    }
  }
  // A prefix ending on a field boundary can still parse; most must not import.
  EXPECT_GT(refused, static_cast<int>(bytes.size()) * 9 / 10);
  EXPECT_CONTAINS(importError(bytes.substr(0, bytes.size() / 2)), "bad.onnx");
}

TEST(OnnxImportErrors, RandomBytesAreRefusedCleanly) {
  std::mt19937 rng(42);
  for (int i = 0; i < 2000; ++i) {
    std::string bytes(rng() % 256, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    try {
      importOnnxBytes(bytes, "random.onnx");
    } catch (const OnnxImportError& e) {
      EXPECT_CONTAINS(e.what(), "random.onnx: ");
    }
  }
  EXPECT_CONTAINS(importError(std::string("\xff\xff\xff\xff", 4)), "truncated or corrupt protobuf");
}

TEST(OnnxImportErrors, FlippedBytesOfAValidModelAreRefusedCleanly) {
  const std::string good = reluModel().bytes();
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    std::string bytes = good;
    for (int k = 0; k < 3; ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
    try {
      importOnnxBytes(bytes, "flipped.onnx");
    } catch (const OnnxImportError& e) {
      EXPECT_CONTAINS(e.what(), "flipped.onnx: ");
    }
  }
}

TEST(OnnxImportErrors, FileErrorsNameThePath) {
  EXPECT_THROW(importOnnxFile("/nonexistent/model.onnx"), OnnxImportError);
  try {
    importOnnxFile("/nonexistent/model.onnx");
  } catch (const OnnxImportError& e) {
    EXPECT_CONTAINS(e.what(), "/nonexistent/model.onnx: cannot open");
  }
  const std::string path = ::testing::TempDir() + "/vdla_truncated.onnx";
  {
    std::ofstream out(path, std::ios::binary);
    std::string bytes = reluModel().bytes();
    out << bytes.substr(0, bytes.size() - 7);
  }
  try {
    importOnnxFile(path);
    ADD_FAILURE() << "truncated file imported";
  } catch (const OnnxImportError& e) {
    EXPECT_CONTAINS(e.what(), path + ": ");
  }
  std::remove(path.c_str());
}

TEST(OnnxImportErrors, UnknownOperatorNamesTheNode) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"a"}, "ok");
  b.node("FancyOp", {"a"}, {"y"}, "fancy");
  b.output("y");
  EXPECT_CONTAINS(importError(b), "bad.onnx: node 1 'fancy' (FancyOp): operator is not supported");
}

TEST(OnnxImportErrors, UnknownDomainAndMissingOpsetImport) {
  ModelBuilder b;
  b.input("x", {2});
  b.node("Relu", {"x"}, {"y"}).set_domain("org.example");
  b.output("y");
  EXPECT_CONTAINS(importError(b), "domain 'org.example' is not supported");
  ModelBuilder ms;
  ms.input("x", {2});
  ms.node("QLinearAdd", {"x"}, {"y"}).set_domain("com.microsoft");
  ms.output("y");
  EXPECT_CONTAINS(importError(ms), "not listed in the model's opset_import");
}

TEST(OnnxImportErrors, OpsetOutsideTheSupportedRange) {
  for (int64_t opset : {1, 6, 22}) {
    ModelBuilder b(opset);
    b.input("x", {2});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    EXPECT_CONTAINS(importError(b), "opset " + std::to_string(opset) + " of the default domain is not supported");
  }
}

TEST(OnnxImportErrors, UnsupportedAttributeNamesIt) {
  ModelBuilder b;
  b.input("x", {2});
  setFloat(b.node("Relu", {"x"}, {"y"}, "r"), "alpha", 0.1f);
  b.output("y");
  EXPECT_CONTAINS(importError(b), "node 0 'r' (Relu): unsupported attribute 'alpha'");
}

TEST(OnnxImportErrors, UnsupportedAttributeKindAndDuplicates) {
  ModelBuilder b;
  b.input("x", {2});
  auto& n = b.node("Flatten", {"x"}, {"y"}, "f");
  auto* a = n.add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g();
  b.output("y");
  EXPECT_CONTAINS(importError(b), "attribute 'axis' has kind GRAPH, which is not supported");

  ModelBuilder d;
  d.input("x", {2, 2});
  auto& f = d.node("Flatten", {"x"}, {"y"}, "f");
  setInt(f, "axis", 1);
  setInt(f, "axis", 0);
  d.output("y");
  EXPECT_CONTAINS(importError(d), "attribute 'axis' is given twice");

  ModelBuilder big;
  big.input("x", {2, 2});
  setInt(big.node("Flatten", {"x"}, {"y"}, "f"), "axis", int64_t{1} << 40);
  big.output("y");
  EXPECT_CONTAINS(importError(big), "out of range");
}

TEST(OnnxImportErrors, BadAttributeValueIsReportedWithTheNode) {
  ModelBuilder b;
  b.input("x", {1, 1, 4, 4});
  auto& n = b.node("MaxPool", {"x"}, {"y"}, "pool");
  setInts(n, "kernel_shape", {2, 2});
  testing::setString(n, "auto_pad", "SIDEWAYS");
  b.output("y");
  EXPECT_CONTAINS(importError(b), "node 0 'pool' (MaxPool): attribute 'auto_pad' has unknown value 'SIDEWAYS'");
}

TEST(OnnxImportErrors, InitializerDataMustMatchItsShape) {
  auto withInit = [](auto mutate) {
    ModelBuilder b;
    b.input("x", {3});
    onnx::TensorProto& t = b.floatInitializer("w", {3}, {1, 2, 3});
    mutate(t);
    b.node("Add", {"x", "w"}, {"y"});
    b.output("y");
    return importError(b);
  };
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) { t.set_raw_data(std::string(8, '\0')); }),
                  "initializer 'w': raw_data has 8 bytes, but shape [3] of FLOAT needs 12");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) {
                    t.clear_raw_data();
                    t.add_float_data(1);
                  }),
                  "holds 1 values for shape [3]");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) { t.clear_raw_data(); }), "it has no data");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) { t.set_dims(0, -3); }), "negative dimension");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) { t.set_dims(0, int64_t{1} << 40); }), "larger than the limit");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) {
                    t.set_dims(0, int64_t{1} << 62);
                    t.add_dims(int64_t{1} << 62);
                  }),
                  "larger than the limit");
  // Found by the fuzzer: an empty tensor whose other dimensions overflow int64.
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) {
                    t.clear_raw_data();
                    t.set_dims(0, 0);
                    t.add_dims(int64_t{1} << 40);
                    t.add_dims(int64_t{1} << 40);
                  }),
                  "larger than the limit");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) {
                    t.set_data_location(onnx::TensorProto::EXTERNAL);
                    auto* e = t.add_external_data();
                    e->set_key("location");
                    e->set_value("weights.bin");
                  }),
                  "external file");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::DOUBLE); }),
                  "element type DOUBLE is not supported");
  EXPECT_CONTAINS(withInit([](onnx::TensorProto& t) { t.set_data_type(12345); }), "element type type 12345");
}

TEST(OnnxImportErrors, IntegerDataOutOfRangeForItsType) {
  ModelBuilder b;
  b.input("x", {2}, onnx::TensorProto::INT8);
  onnx::TensorProto* t = b.graph().add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::INT8);
  t->add_dims(2);
  t->add_int32_data(1);
  t->add_int32_data(300);
  b.node("Add", {"x", "w"}, {"y"});
  b.output("y");
  EXPECT_CONTAINS(importError(b), "value 300 at index 1 does not fit");
}

TEST(OnnxImportErrors, ReshapeWithComputedShapeIsDynamic) {
  ModelBuilder b;
  b.input("x", {2, 3});
  b.input("shape", {2}, onnx::TensorProto::INT64);
  b.node("Reshape", {"x", "shape"}, {"y"}, "reshape0");
  b.output("y");
  EXPECT_CONTAINS(importError(b), "node 0 'reshape0' (Reshape): input 1 (shape) 'shape' is computed at run time");
  OnnxImportOptions bound;
  bound.input_values["shape"] = rt::Tensor::fromVector<int64_t>({2}, {3, 2});
  EXPECT_EQ(importError(b, bound), "");
}

TEST(OnnxImportErrors, MissingInputsAndOutputs) {
  ModelBuilder undefined;
  undefined.input("x", {2});
  undefined.node("Add", {"x", "nowhere"}, {"y"}, "add0");
  undefined.output("y");
  EXPECT_CONTAINS(importError(undefined), "node 0 'add0' (Add): input 'nowhere' is not defined");

  ModelBuilder required;
  required.input("x", {2});
  required.node("Add", {"x", ""}, {"y"}, "add0");
  required.output("y");
  EXPECT_CONTAINS(importError(required), "required input 1 is missing");

  ModelBuilder arity;
  arity.input("x", {2});
  arity.node("Add", {"x"}, {"y"}, "add0");
  arity.output("y");
  EXPECT_CONTAINS(importError(arity), "1 inputs, expected 2..2");

  ModelBuilder output;
  output.input("x", {2});
  output.node("Relu", {"x"}, {"y"});
  output.output("z");
  EXPECT_CONTAINS(importError(output), "graph output 'z' is not produced by any node");

  ModelBuilder none;
  none.input("x", {2});
  none.node("Relu", {"x"}, {"y"});
  EXPECT_CONTAINS(importError(none), "the graph has no outputs");
}

TEST(OnnxImportErrors, SsaViolationsAndCycles) {
  ModelBuilder twice;
  twice.input("x", {2});
  twice.node("Relu", {"x"}, {"y"}, "a");
  twice.node("Neg", {"x"}, {"y"}, "b");
  twice.output("y");
  EXPECT_CONTAINS(importError(twice), "node 1 'b' (Neg): output 'y' is produced twice");

  ModelBuilder cycle;
  cycle.input("x", {2});
  cycle.node("Add", {"x", "b"}, {"a"}, "first");
  cycle.node("Relu", {"a"}, {"b"}, "second");
  cycle.output("b");
  EXPECT_CONTAINS(importError(cycle), "is part of a cycle");

  ModelBuilder shadow;
  shadow.input("x", {2});
  shadow.node("Relu", {"x"}, {"x"}, "r");
  shadow.output("x");
  EXPECT_CONTAINS(importError(shadow), "output 'x' is also a graph input or initializer");
}

TEST(OnnxImportErrors, UnsupportedInputTypesAndShapes) {
  ModelBuilder dbl;
  dbl.input("x", {2}, onnx::TensorProto::DOUBLE);
  dbl.node("Relu", {"x"}, {"y"});
  dbl.output("y");
  EXPECT_CONTAINS(importError(dbl), "graph input 'x': element type DOUBLE is not supported");

  ModelBuilder neg;
  neg.input("x", {-2});
  neg.node("Relu", {"x"}, {"y"});
  neg.output("y");
  EXPECT_CONTAINS(importError(neg), "graph input 'x': dimension -2 is negative");

  ModelBuilder huge;
  huge.input("x", {int64_t{1} << 20, int64_t{1} << 20, 1024});
  huge.node("Relu", {"x"}, {"y"});
  huge.output("y");
  EXPECT_CONTAINS(importError(huge), "larger than the limit of 2 GiB");

  ModelBuilder noshape;
  noshape.input("x", {2}).mutable_type()->mutable_tensor_type()->clear_shape();
  noshape.node("Relu", {"x"}, {"y"});
  noshape.output("y");
  EXPECT_CONTAINS(importError(noshape), "it has no shape");
  OnnxImportOptions shapes;
  shapes.input_shapes["x"] = {3};
  EXPECT_EQ(importError(noshape, shapes), "");
  shapes.input_shapes["nope"] = {3};
  EXPECT_CONTAINS(importError(noshape, shapes), "input_shapes names 'nope'");
}

TEST(OnnxImportErrors, TrainingModeIsRefused) {
  ModelBuilder bn(15);
  bn.input("x", {1, 2, 2, 2});
  for (const char* name : {"s", "b", "m", "v"}) bn.floatInitializer(name, {2}, {1, 1});
  setInt(bn.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"}, "bn"), "training_mode", 1);
  bn.output("y");
  EXPECT_CONTAINS(importError(bn), "node 0 'bn' (BatchNormalization): training_mode=1 is not supported");

  ModelBuilder bn9(9);
  bn9.input("x", {1, 2, 2, 2});
  for (const char* name : {"s", "b", "m", "v"}) bn9.floatInitializer(name, {2}, {1, 1});
  bn9.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "mean", "var"}, "bn");
  bn9.output("y");
  EXPECT_CONTAINS(importError(bn9), "training mode");

  ModelBuilder drop(13);
  drop.input("x", {4});
  drop.floatInitializer("r", {}, {0.5f});
  onnx::TensorProto* t = drop.graph().add_initializer();
  t->set_name("train");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  drop.node("Dropout", {"x", "r", "train"}, {"y"}, "drop");
  drop.output("y");
  EXPECT_CONTAINS(importError(drop),
                  "node 0 'drop' (Dropout): training_mode=true with a nonzero (or default 0.5) ratio");

  ModelBuilder pool(12);
  pool.input("x", {1, 1, 4, 4});
  setInts(pool.node("MaxPool", {"x"}, {"y", "idx"}, "mp"), "kernel_shape", {2, 2});
  pool.output("y");
  EXPECT_CONTAINS(importError(pool), "Indices output (argmax) is not supported");
}

TEST(OnnxImportErrors, ModelHeaderProblems) {
  ModelBuilder nograph;
  nograph.model().clear_graph();
  EXPECT_CONTAINS(importError(nograph), "the model has no graph");

  ModelBuilder noopset;
  noopset.input("x", {2});
  noopset.node("Relu", {"x"}, {"y"});
  noopset.output("y");
  noopset.model().clear_opset_import();
  EXPECT_CONTAINS(importError(noopset), "no entry for the default ONNX domain");

  ModelBuilder sparse = reluModel();
  sparse.graph().add_sparse_initializer();
  EXPECT_CONTAINS(importError(sparse), "sparse initializers are not supported");

  EXPECT_CONTAINS(importError(std::string()), "the model has no graph");
}

// Found by the fuzzer: a NaN Clip bound on an integer input was converted to int.
TEST(OnnxImportErrors, ClipBoundThatDoesNotFitTheElementType) {
  for (float bound : {std::nanf(""), 1e10f, -200.0f}) {
    ModelBuilder b(10);
    b.input("x", {2}, bound == -200.0f ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT32);
    setFloat(b.node("Clip", {"x"}, {"y"}, "clip"), "min", bound);
    b.output("y");
    EXPECT_CONTAINS(importError(b), "node 0 'clip' (Clip): value");
    EXPECT_CONTAINS(importError(b), "does not fit the input's integer element type");
  }
}

TEST(OnnxImportErrors, ConstantNodeProblems) {
  ModelBuilder b;
  b.input("x", {2});
  auto& c = b.node("Constant", {}, {"c"}, "const0");
  auto* a = c.add_attribute();
  a->set_name("value_strings");
  a->set_type(onnx::AttributeProto::STRINGS);
  a->add_strings("hello");
  b.node("Add", {"x", "c"}, {"y"});
  b.output("y");
  EXPECT_CONTAINS(importError(b), "node 0 'const0' (Constant): attribute 'value_strings' is not supported");
}

// Inputs that once crashed the importer under the fuzzer.
TEST(OnnxImportErrors, FuzzerRegressionsAreRefusedCleanly) {
  const std::string dir = VDLA_ONNX_FUZZ_REGRESSION_DIR;
  for (const char* name : {"clip_nan_bound_on_int32.onnx", "empty_tensor_dims_overflow.onnx"}) {
    const std::string path = dir + "/" + name;
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    EXPECT_THROW(importOnnxFile(path), OnnxImportError) << path;
  }
}

TEST(OnnxImportErrors, TensorFilesAreChecked) {
  EXPECT_THROW(onnxTensorFromBytes("\x08", "t.pb"), OnnxImportError);
  onnx::TensorProto t = testing::floatTensor({2}, {1, 2});
  t.set_name("x");
  rt::Tensor ok = onnxTensorFromBytes(t.SerializeAsString(), "t.pb");
  EXPECT_EQ(ok.toVector<float>(), (std::vector<float>{1, 2}));
  t.add_dims(2);
  try {
    onnxTensorFromBytes(t.SerializeAsString(), "t.pb");
    ADD_FAILURE();
  } catch (const OnnxImportError& e) {
    EXPECT_CONTAINS(e.what(), "t.pb: tensor 'x': raw_data has 8 bytes");
  }
}

}  // namespace
}  // namespace vdla::frontend
