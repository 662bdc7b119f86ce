// Built-in models, written in C++ exactly as torchvision defines them and
// emitted in the unfused form an ONNX export gives (Conv without bias,
// BatchNormalization, Relu / Clip(0, 6), Add, MaxPool, GlobalAveragePool,
// Flatten, Dropout, Gemm), so that the graph passes have real work to do.
//
// Weights are deterministic for a seed and portable: every tensor draws from
// its own xoshiro256** stream seeded from (seed, tensor name), with the
// distributions written out here rather than std's implementation-defined ones.
// Convolutions get Kaiming-normal-like weights (fan-in mode), batch norms
// non-trivial running statistics (so that folding them is really tested) and
// affine parameters near gamma = 1, beta = 0, the classifier a fan-in uniform
// init: logits are finite and differ per input.
//
// Every graph has one input "input" f32[batch, 3, image_size, image_size] and
// one output "logits" f32[batch, num_classes], and is fully typed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"

namespace vdla::zoo {

struct ZooOptions {
  int64_t batch = 1;
  int64_t image_size = 224;
  uint64_t seed = 0;
  int64_t num_classes = 1000;
};

// resnet18, resnet34, resnet50, mobilenetv2, and "cnn", a small residual
// network for tests (two conv stages, a residual join, Clip, the classifier).
std::vector<std::string> modelNames();
bool isZooModel(const std::string& name);
// Throws std::invalid_argument listing the names for an unknown name, and for
// options the architecture cannot take (an image smaller than 32 for ResNet and MobileNetV2).
std::unique_ptr<ir::Graph> buildModel(const std::string& name, const ZooOptions& options = {});

// Trainable parameters as PyTorch counts them (module.parameters()): elements
// of every f32 constant of rank >= 1 except batch norms' running statistics.
// Before batch-norm folding it equals torchvision's count for the zoo models.
int64_t parameterCount(const ir::Graph& graph);

}  // namespace vdla::zoo
