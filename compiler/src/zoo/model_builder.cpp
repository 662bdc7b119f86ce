#include "model_builder.h"

#include <cmath>

namespace vdla::zoo::detail {

ir::Value* ModelBuilder::normal(const std::string& name, rt::Shape shape, double stddev) {
  rt::Tensor t(rt::DType::F32, std::move(shape));
  Xoshiro256 rng = streamFor(seed_, name);
  fillNormal(t, rng, stddev);
  return graph_.addConstant(name, std::move(t));
}

ir::Value* ModelBuilder::uniform(const std::string& name, rt::Shape shape, double lo, double hi) {
  rt::Tensor t(rt::DType::F32, std::move(shape));
  Xoshiro256 rng = streamFor(seed_, name);
  fillUniform(t, rng, lo, hi);
  return graph_.addConstant(name, std::move(t));
}

ir::Value* ModelBuilder::conv(ir::Value* x, const std::string& name, int64_t in_channels, int64_t out_channels,
                              int64_t kernel, int64_t stride, int64_t pad, int64_t groups, bool bias) {
  const int64_t fan_in = in_channels / groups * kernel * kernel;
  // Kaiming normal for ReLU networks: std = sqrt(2 / fan_in) keeps the activations' scale.
  ir::Value* w =
      normal(name + ".weight", {out_channels, in_channels / groups, kernel, kernel}, std::sqrt(2.0 / fan_in));
  std::vector<ir::Value*> inputs = {x, w};
  if (bias) {
    double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
    inputs.push_back(uniform(name + ".bias", {out_channels}, -bound, bound));
  }
  rt::AttributeMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{kernel, kernel});
  attrs.set("strides", std::vector<int64_t>{stride, stride});
  attrs.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  attrs.set("dilations", std::vector<int64_t>{1, 1});
  attrs.set("group", groups);
  return graph_.addNode("Conv", inputs, 1, std::move(attrs), name)->output();
}

ir::Value* ModelBuilder::batchNorm(ir::Value* x, const std::string& name, int64_t channels) {
  // Statistics chosen so that BN roughly preserves a unit scale (E[1/var] ~ 1)
  // while every channel gets its own scale and shift.
  ir::Value* gamma = uniform(name + ".weight", {channels}, 0.8, 1.2);
  ir::Value* beta = uniform(name + ".bias", {channels}, -0.1, 0.1);
  ir::Value* mean = uniform(name + ".running_mean", {channels}, -0.2, 0.2);
  ir::Value* var = uniform(name + ".running_var", {channels}, 0.6, 1.6);
  rt::AttributeMap attrs;
  attrs.set("epsilon", 1e-5);
  attrs.set("momentum", 0.9);
  return graph_.addNode("BatchNormalization", {x, gamma, beta, mean, var}, 1, std::move(attrs), name)->output();
}

ir::Value* ModelBuilder::relu(ir::Value* x, const std::string& name) {
  return graph_.addNode("Relu", {x}, 1, {}, name)->output();
}

ir::Value* ModelBuilder::relu6(ir::Value* x, const std::string& name) {
  if (!clip_min_) {
    clip_min_ = graph_.addConstant(graph_.uniqueName("relu6.min"), rt::Tensor::scalar<float>(0.0f));
    clip_max_ = graph_.addConstant(graph_.uniqueName("relu6.max"), rt::Tensor::scalar<float>(6.0f));
  }
  return graph_.addNode("Clip", {x, clip_min_, clip_max_}, 1, {}, name)->output();
}

ir::Value* ModelBuilder::add(ir::Value* a, ir::Value* b, const std::string& name) {
  return graph_.addNode("Add", {a, b}, 1, {}, name)->output();
}

ir::Value* ModelBuilder::maxPool(ir::Value* x, const std::string& name, int64_t kernel, int64_t stride, int64_t pad) {
  rt::AttributeMap attrs;
  attrs.set("kernel_shape", std::vector<int64_t>{kernel, kernel});
  attrs.set("strides", std::vector<int64_t>{stride, stride});
  attrs.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  attrs.set("ceil_mode", int64_t{0});
  return graph_.addNode("MaxPool", {x}, 1, std::move(attrs), name)->output();
}

ir::Value* ModelBuilder::globalAveragePool(ir::Value* x, const std::string& name) {
  return graph_.addNode("GlobalAveragePool", {x}, 1, {}, name)->output();
}

ir::Value* ModelBuilder::flatten(ir::Value* x, const std::string& name) {
  rt::AttributeMap attrs;
  attrs.set("axis", int64_t{1});
  return graph_.addNode("Flatten", {x}, 1, std::move(attrs), name)->output();
}

ir::Value* ModelBuilder::dropout(ir::Value* x, const std::string& name, double ratio) {
  rt::AttributeMap attrs;
  attrs.set("ratio", ratio);
  return graph_.addNode("Dropout", {x}, 1, std::move(attrs), name)->output();
}

ir::Value* ModelBuilder::linear(ir::Value* x, const std::string& name, int64_t in_features, int64_t out_features,
                                const std::string& output_name) {
  double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  ir::Value* w = uniform(name + ".weight", {out_features, in_features}, -bound, bound);
  ir::Value* b = uniform(name + ".bias", {out_features}, -bound, bound);
  rt::AttributeMap attrs;
  attrs.set("alpha", 1.0);
  attrs.set("beta", 1.0);
  attrs.set("transB", int64_t{1});
  std::vector<std::string> outputs;
  if (!output_name.empty()) outputs.push_back(output_name);
  return graph_.addNode("Gemm", {x, w, b}, 1, std::move(attrs), name, "", outputs)->output();
}

}  // namespace vdla::zoo::detail
