#include "model_reader.h"

#include <climits>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "vdla/frontend/onnx_importer.h"

namespace vdla::frontend::detail {

namespace {

// Protobuf cannot represent messages of 2 GiB or more.
constexpr size_t kMaxMessageBytes = INT_MAX;
// Nesting depth of messages; ONNX models need a handful (graphs inside attributes more).
constexpr int kRecursionLimit = 64;

template <typename Message>
Message parseMessage(const std::string& bytes, const std::string& source_name, const char* what) {
  if (bytes.size() > kMaxMessageBytes)
    throw OnnxImportError(source_name + ": " + std::to_string(bytes.size()) +
                          " bytes is larger than protobuf's limit of 2 GiB");
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  coded.SetRecursionLimit(kRecursionLimit);
  Message message;
  if (!message.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    throw OnnxImportError(source_name + ": not a valid ONNX " + what + " (truncated or corrupt protobuf)");
  return message;
}

}  // namespace

std::string readFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OnnxImportError(path + ": cannot open file");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw OnnxImportError(path + ": cannot read file");
  if (static_cast<uint64_t>(size) > kMaxMessageBytes)
    throw OnnxImportError(path + ": " + std::to_string(size) +
                          " bytes is larger than protobuf's limit of 2 GiB (external data is not supported)");
  in.seekg(0, std::ios::beg);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (size > 0 && !in.read(bytes.data(), size)) throw OnnxImportError(path + ": cannot read file");
  return bytes;
}

onnx::ModelProto parseModel(const std::string& bytes, const std::string& source_name) {
  return parseMessage<onnx::ModelProto>(bytes, source_name, "model");
}

onnx::TensorProto parseTensor(const std::string& bytes, const std::string& source_name) {
  return parseMessage<onnx::TensorProto>(bytes, source_name, "tensor");
}

}  // namespace vdla::frontend::detail
