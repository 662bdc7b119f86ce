// Runs scripts/onnx/ort_classify.py (onnxruntime) on raw input tensors and
// returns the top-k classes of each (or every logit), for comparisons with the
// reference executor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vdla/runtime/tensor.h"

namespace vdla::testing {

// Empty when onnxruntime can be imported by the `python3` on PATH, otherwise why not.
std::string onnxruntimeUnavailableReason();

// Writes each input as little-endian float32 to work_dir and classifies all of
// them in one onnxruntime session; result[i] lists the top-k class indices of input i.
std::vector<std::vector<int64_t>> classifyWithOnnxruntime(const std::string& model_path,
                                                          const std::vector<rt::Tensor>& inputs,
                                                          const std::string& work_dir, int top_k = 5);

// The same run, returning every output value of each input (the logits).
std::vector<std::vector<float>> onnxruntimeLogits(const std::string& model_path, const std::vector<rt::Tensor>& inputs,
                                                  const std::string& work_dir);

}  // namespace vdla::testing
