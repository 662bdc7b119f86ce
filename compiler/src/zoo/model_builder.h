// Emits the layers of the zoo models in the form an ONNX export of the
// PyTorch module gives, with seeded weights named after the module's
// state_dict entries ("layer1.0.conv1.weight", "layer1.0.bn1.running_var").
#pragma once

#include <cstdint>
#include <string>

#include "vdla/compiler/ir/graph.h"
#include "weight_init.h"

namespace vdla::zoo::detail {

class ModelBuilder {
 public:
  ModelBuilder(ir::Graph& graph, uint64_t seed) : graph_(graph), seed_(seed) {}

  ir::Graph& graph() { return graph_; }

  // nn.Conv2d(in, out, k, stride, padding=pad, groups, bias) with Kaiming-normal (fan-in) weights.
  ir::Value* conv(ir::Value* x, const std::string& name, int64_t in_channels, int64_t out_channels, int64_t kernel,
                  int64_t stride, int64_t pad, int64_t groups = 1, bool bias = false);
  // nn.BatchNorm2d(channels) in eval mode, eps 1e-5, with non-trivial running statistics.
  ir::Value* batchNorm(ir::Value* x, const std::string& name, int64_t channels);
  ir::Value* relu(ir::Value* x, const std::string& name);
  // nn.ReLU6 as exported from opset 11 on: Clip(x, 0, 6) with scalar bound inputs.
  ir::Value* relu6(ir::Value* x, const std::string& name);
  ir::Value* add(ir::Value* a, ir::Value* b, const std::string& name);
  ir::Value* maxPool(ir::Value* x, const std::string& name, int64_t kernel, int64_t stride, int64_t pad);
  ir::Value* globalAveragePool(ir::Value* x, const std::string& name);
  ir::Value* flatten(ir::Value* x, const std::string& name);
  ir::Value* dropout(ir::Value* x, const std::string& name, double ratio);
  // nn.Linear(in, out): Gemm(x, W[out, in], b[out]) with transB = 1 and
  // PyTorch's default uniform(+-1/sqrt(in)) initialisation.
  ir::Value* linear(ir::Value* x, const std::string& name, int64_t in_features, int64_t out_features,
                    const std::string& output_name = "");

 private:
  ir::Value* normal(const std::string& name, rt::Shape shape, double stddev);
  ir::Value* uniform(const std::string& name, rt::Shape shape, double lo, double hi);

  ir::Graph& graph_;
  uint64_t seed_;
  ir::Value* clip_min_ = nullptr;
  ir::Value* clip_max_ = nullptr;
};

}  // namespace vdla::zoo::detail
