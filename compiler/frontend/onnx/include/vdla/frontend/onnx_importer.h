// The ONNX frontend: reads an ONNX model (protobuf) into the compiler's graph IR.
//
// The imported graph has static shapes and ONE form per operator, whatever the
// model's opset: initializers and Constant nodes become constants, attributes that
// later opsets turned into inputs (Clip's bounds, Pad's pads, Squeeze/Unsqueeze/
// ReduceMean axes) take their IR form, auto_pad is resolved into explicit pads and
// inference-only operators (Dropout, BatchNormalization) drop their training
// parts. Anything the IR cannot represent (an unknown operator or attribute, a
// training-mode node, a shape that depends on run-time values, an element type the
// runtime lacks) is refused with an OnnxImportError naming the file, the node and
// the reason; malformed files (truncated or corrupt protobuf, tensors whose data
// does not match their shape, absurd sizes) are refused the same way, never crash.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/runtime/tensor.h"

namespace vdla::frontend {

struct OnnxImportOptions {
  // Values for symbolic/unknown input dimensions ("N" -> 1); by default every
  // unknown dim becomes 1 (batch).
  std::map<std::string, int64_t> dim_values;
  // Override whole input shapes by input name.
  std::map<std::string, rt::Shape> input_shapes;
  // Graph inputs bound to fixed values; they become constants. For inputs that
  // decide shapes (a Reshape's target shape, Pad's pads, Squeeze's axes), which
  // the static-shape IR needs when it compiles.
  std::map<std::string, rt::Tensor> input_values;
  // Where tensors stored in external files are resolved. importOnnxFile uses
  // the model's folder when this is empty; importOnnxBytes then refuses them.
  std::string external_data_dir;
};

class OnnxImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::unique_ptr<ir::Graph> importOnnxFile(const std::string& path, const OnnxImportOptions& options = {});
std::unique_ptr<ir::Graph> importOnnxBytes(const std::string& bytes, const std::string& source_name,
                                           const OnnxImportOptions& options = {});
// ONNX operators the importer accepts ("Conv", "com.microsoft.QLinearAdd"), sorted.
std::vector<std::string> supportedOnnxOperators();

// A serialized ONNX TensorProto (the node tests' input_*.pb / output_*.pb) as a
// tensor. Throws OnnxImportError naming source_name.
rt::Tensor onnxTensorFromBytes(const std::string& bytes, const std::string& source_name);
rt::Tensor loadOnnxTensorFile(const std::string& path);

}  // namespace vdla::frontend
