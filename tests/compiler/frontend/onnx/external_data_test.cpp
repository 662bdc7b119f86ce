// Tensors stored in files beside the model (ONNX external data): read at
// their offset and length, relative to the model's folder; every way the
// reference can be wrong is refused naming the tensor and the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "vdla/compiler/ir/graph.h"
#include "vdla/frontend/onnx_importer.h"

namespace vdla::frontend {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vdla_external_data_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "weights");
    // Eight bytes of something else first, so that the offset matters.
    const float bias[4] = {1.5f, -2.0f, 3.25f, 4.0f};
    std::ofstream out(dir_ / "weights" / "w.bin", std::ios::binary);
    out.write("HEADER..", 8);
    out.write(reinterpret_cast<const char*>(bias), sizeof bias);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The Add+Relu model with its bias stored externally; `edit` changes the
  // external_data entries. Returns the model's path.
  std::string save(const std::vector<std::pair<std::string, std::string>>& entries) {
    ModelBuilder b;
    b.input("x", {1, 4});
    onnx::TensorProto& t = b.floatInitializer("bias", {4}, {0, 0, 0, 0});
    t.clear_raw_data();
    t.clear_float_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [k, v] : entries) {
      auto* e = t.add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    b.node("Add", {"x", "bias"}, {"s"}, "add0");
    b.node("Relu", {"s"}, {"y"}, "relu0");
    b.output("y");
    const fs::path path = dir_ / "model.onnx";
    std::ofstream(path, std::ios::binary) << b.bytes();
    return path.string();
  }

  std::string importError(const std::string& path) {
    try {
      importOnnxFile(path);
    } catch (const OnnxImportError& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(ExternalData, ReadsTheTensorAtItsOffsetAndLength) {
  const auto graph = importOnnxFile(save({{"location", "weights/w.bin"}, {"offset", "8"}, {"length", "16"}}));
  const ir::Value* bias = graph->findValue("bias");
  ASSERT_NE(bias, nullptr);
  const float* d = bias->constant().data<float>();
  EXPECT_EQ(d[0], 1.5f);
  EXPECT_EQ(d[1], -2.0f);
  EXPECT_EQ(d[2], 3.25f);
  EXPECT_EQ(d[3], 4.0f);
}

TEST_F(ExternalData, WithoutALengthTheRestOfTheFile) {
  const auto graph = importOnnxFile(save({{"location", "weights/w.bin"}, {"offset", "8"}}));
  EXPECT_EQ(graph->findValue("bias")->constant().data<float>()[3], 4.0f);
}

TEST_F(ExternalData, BadReferencesAreRefusedNamingTheTensorAndFile) {
  EXPECT_CONTAINS(importError(save({{"location", "weights/w.bin"}})), "raw_data has 24 bytes");
  EXPECT_CONTAINS(importError(save({{"location", "weights/w.bin"}, {"offset", "20"}, {"length", "16"}})),
                  "tensor 'bias': external data [20, 36) lies outside");
  EXPECT_CONTAINS(importError(save({{"location", "weights/w.bin"}, {"offset", "100"}})), "is past the end of");
  EXPECT_CONTAINS(importError(save({{"location", "weights/w.bin"}, {"offset", "-8"}})),
                  "'offset' is not a non-negative integer");
  EXPECT_CONTAINS(importError(save({{"location", "missing.bin"}})), "cannot read external data file");
  EXPECT_CONTAINS(importError(save({{"location", "../outside.bin"}})), "leaves the model's folder");
  EXPECT_CONTAINS(importError(save({{"location", "/etc/passwd"}})), "is an absolute path");
  EXPECT_CONTAINS(importError(save({{"offset", "8"}})), "external data without a 'location'");
  const std::string msg = importError(save({{"location", "missing.bin"}}));
  EXPECT_CONTAINS(msg, "model.onnx: tensor 'bias'");
}

}  // namespace
}  // namespace vdla::frontend
