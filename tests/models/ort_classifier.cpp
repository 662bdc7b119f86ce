#include "ort_classifier.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace vdla::testing {

namespace {

// Output of a shell command and its exit status.
std::pair<std::string, int> capture(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run: " + command);
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0) out.append(buffer, n);
  int status = pclose(pipe.release());
  return {out, status};
}

// One JSON line per input from ort_classify.py.
std::vector<nlohmann::json> runOrtClassify(const std::string& model_path, const std::vector<rt::Tensor>& inputs,
                                           const std::string& work_dir, const std::string& options) {
  std::filesystem::create_directories(work_dir);
  std::string command =
      "python3 '" VDLA_SOURCE_DIR "/scripts/onnx/ort_classify.py' '" + model_path + "' " + options + " --shape ";
  const auto& shape = inputs.at(0).shape();
  for (size_t i = 0; i < shape.size(); ++i) command += (i ? "," : "") + std::to_string(shape[i]);
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::string path = work_dir + "/input_" + std::to_string(i) + ".bin";
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(inputs[i].raw()), static_cast<std::streamsize>(inputs[i].byteSize()));
    if (!out) throw std::runtime_error("cannot write " + path);
    command += " '" + path + "'";
  }
  auto [text, status] = capture(command + " 2>&1");
  if (status != 0) throw std::runtime_error("onnxruntime failed:\n" + text);
  std::vector<nlohmann::json> result;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty() || line[0] != '{') continue;
    result.push_back(nlohmann::json::parse(line));
  }
  if (result.size() != inputs.size())
    throw std::runtime_error("onnxruntime classified " + std::to_string(result.size()) + " of " +
                             std::to_string(inputs.size()) + " inputs:\n" + text);
  return result;
}

}  // namespace

std::string onnxruntimeUnavailableReason() {
  auto [out, status] = capture("python3 -c 'import onnxruntime, numpy' 2>&1");
  return status == 0 ? "" : "python3 cannot import onnxruntime: " + out;
}

std::vector<std::vector<int64_t>> classifyWithOnnxruntime(const std::string& model_path,
                                                          const std::vector<rt::Tensor>& inputs,
                                                          const std::string& work_dir, int top_k) {
  std::vector<std::vector<int64_t>> result;
  for (const nlohmann::json& line : runOrtClassify(model_path, inputs, work_dir, "--top " + std::to_string(top_k)))
    result.push_back(line.at("top").get<std::vector<int64_t>>());
  return result;
}

std::vector<std::vector<float>> onnxruntimeLogits(const std::string& model_path, const std::vector<rt::Tensor>& inputs,
                                                  const std::string& work_dir) {
  std::vector<std::vector<float>> result;
  for (const nlohmann::json& line : runOrtClassify(model_path, inputs, work_dir, "--top 1 --logits")) {
    std::vector<float> logits;
    for (double v : line.at("logits").get<std::vector<double>>()) logits.push_back(static_cast<float>(v));
    result.push_back(std::move(logits));
  }
  return result;
}

}  // namespace vdla::testing
