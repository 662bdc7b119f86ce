// torchvision.models.resnet (v1.5: the stride of a Bottleneck sits on its 3x3 conv).
#include <stdexcept>

#include "zoo_models.h"

namespace vdla::zoo::detail {

namespace {

struct ResNetSpec {
  bool bottleneck;
  int blocks[4];
};

ResNetSpec specFor(int depth) {
  switch (depth) {
    case 18: return {false, {2, 2, 2, 2}};
    case 34: return {false, {3, 4, 6, 3}};
    case 50: return {true, {3, 4, 6, 3}};
    default: throw std::invalid_argument("ResNet depth " + std::to_string(depth) + " is not built in (18, 34, 50)");
  }
}

// BasicBlock: conv3x3(stride) bn relu conv3x3 bn (+ downsample) add relu.
ir::Value* basicBlock(ModelBuilder& b, ir::Value* x, const std::string& p, int64_t in, int64_t planes, int64_t stride) {
  ir::Value* out = b.conv(x, p + ".conv1", in, planes, 3, stride, 1);
  out = b.relu(b.batchNorm(out, p + ".bn1", planes), p + ".relu1");
  out = b.batchNorm(b.conv(out, p + ".conv2", planes, planes, 3, 1, 1), p + ".bn2", planes);
  ir::Value* identity = x;
  if (stride != 1 || in != planes)
    identity = b.batchNorm(b.conv(x, p + ".downsample.0", in, planes, 1, stride, 0), p + ".downsample.1", planes);
  return b.relu(b.add(out, identity, p + ".add"), p + ".relu2");
}

// Bottleneck: conv1x1 bn relu conv3x3(stride) bn relu conv1x1(x4) bn (+ downsample) add relu.
ir::Value* bottleneck(ModelBuilder& b, ir::Value* x, const std::string& p, int64_t in, int64_t planes, int64_t stride) {
  const int64_t width = planes;  // base_width 64, groups 1
  const int64_t out_channels = planes * 4;
  ir::Value* out = b.relu(b.batchNorm(b.conv(x, p + ".conv1", in, width, 1, 1, 0), p + ".bn1", width), p + ".relu1");
  out = b.relu(b.batchNorm(b.conv(out, p + ".conv2", width, width, 3, stride, 1), p + ".bn2", width), p + ".relu2");
  out = b.batchNorm(b.conv(out, p + ".conv3", width, out_channels, 1, 1, 0), p + ".bn3", out_channels);
  ir::Value* identity = x;
  if (stride != 1 || in != out_channels)
    identity =
        b.batchNorm(b.conv(x, p + ".downsample.0", in, out_channels, 1, stride, 0), p + ".downsample.1", out_channels);
  return b.relu(b.add(out, identity, p + ".add"), p + ".relu3");
}

}  // namespace

void buildResNet(ModelBuilder& b, int depth, const ZooOptions& options) {
  const ResNetSpec spec = specFor(depth);
  ir::Graph& g = b.graph();
  ir::Value* x = g.addInput(
      "input", {rt::DType::F32, {options.batch, 3, options.image_size, options.image_size}, rt::Layout::NCHW});
  x = b.conv(x, "conv1", 3, 64, 7, 2, 3);
  x = b.relu(b.batchNorm(x, "bn1", 64), "relu");
  x = b.maxPool(x, "maxpool", 3, 2, 1);
  int64_t in = 64;
  const int64_t expansion = spec.bottleneck ? 4 : 1;
  for (int layer = 0; layer < 4; ++layer) {
    const int64_t planes = int64_t{64} << layer;
    for (int i = 0; i < spec.blocks[layer]; ++i) {
      const int64_t stride = (layer > 0 && i == 0) ? 2 : 1;
      const std::string prefix = "layer" + std::to_string(layer + 1) + "." + std::to_string(i);
      x = spec.bottleneck ? bottleneck(b, x, prefix, in, planes, stride) : basicBlock(b, x, prefix, in, planes, stride);
      in = planes * expansion;
    }
  }
  x = b.flatten(b.globalAveragePool(x, "avgpool"), "flatten");
  g.addOutput(b.linear(x, "fc", 512 * expansion, options.num_classes, "logits"));
}

}  // namespace vdla::zoo::detail
