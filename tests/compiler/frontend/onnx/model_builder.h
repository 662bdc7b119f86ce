// Builds small ONNX models in memory for the importer tests, including
// deliberately broken ones.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace vdla::frontend::testing {

// A dimension of a graph input: a number, or a name (dim_param) when `param` is set.
struct Dim {
  Dim(int64_t v) : value(v) {}      // NOLINT(google-explicit-constructor)
  Dim(const char* p) : param(p) {}  // NOLINT(google-explicit-constructor)
  int64_t value = 0;
  std::string param;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 13);

  onnx::ValueInfoProto& input(const std::string& name, std::vector<Dim> dims,
                              int32_t elem_type = onnx::TensorProto::FLOAT);
  onnx::TensorProto& floatInitializer(const std::string& name, std::vector<int64_t> dims, std::vector<float> values);
  onnx::TensorProto& int64Initializer(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values);
  onnx::NodeProto& node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                        const std::string& name = "");
  void output(const std::string& name);
  void importOpset(const std::string& domain, int64_t version);

  onnx::ModelProto& model() { return model_; }
  onnx::GraphProto& graph() { return *model_.mutable_graph(); }
  std::string bytes() const;

 private:
  onnx::ModelProto model_;
};

void setInt(onnx::NodeProto& node, const std::string& name, int64_t value);
void setInts(onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values);
void setFloat(onnx::NodeProto& node, const std::string& name, float value);
void setString(onnx::NodeProto& node, const std::string& name, const std::string& value);
onnx::TensorProto floatTensor(std::vector<int64_t> dims, std::vector<float> values);

}  // namespace vdla::frontend::testing
