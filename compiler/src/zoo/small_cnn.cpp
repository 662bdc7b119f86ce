// "cnn": a small network for tests that has one of each pattern the passes
// rewrite: Conv+BN+Relu, a residual join with Relu, a Conv with bias + BN +
// ReLU6, a depthwise Conv, MaxPool, global pooling, Dropout and the classifier.
#include "zoo_models.h"

namespace vdla::zoo::detail {

void buildSmallCnn(ModelBuilder& b, const ZooOptions& options) {
  ir::Graph& g = b.graph();
  ir::Value* x = g.addInput(
      "input", {rt::DType::F32, {options.batch, 3, options.image_size, options.image_size}, rt::Layout::NCHW});
  x = b.relu(b.batchNorm(b.conv(x, "stem.conv", 3, 16, 3, 1, 1), "stem.bn", 16), "stem.relu");
  x = b.maxPool(x, "stem.pool", 2, 2, 0);
  ir::Value* y = b.relu(b.batchNorm(b.conv(x, "block.conv1", 16, 16, 3, 1, 1), "block.bn1", 16), "block.relu1");
  y = b.batchNorm(b.conv(y, "block.conv2", 16, 16, 3, 1, 1), "block.bn2", 16);
  x = b.relu(b.add(y, x, "block.add"), "block.relu2");
  x = b.relu6(b.batchNorm(b.conv(x, "down.conv", 16, 32, 3, 2, 1, 1, /*bias=*/true), "down.bn", 32), "down.relu6");
  x = b.relu6(b.batchNorm(b.conv(x, "dw.conv", 32, 32, 3, 1, 1, 32), "dw.bn", 32), "dw.relu6");
  x = b.flatten(b.globalAveragePool(x, "avgpool"), "flatten");
  x = b.dropout(x, "dropout", 0.5);
  g.addOutput(b.linear(x, "fc", 32, options.num_classes, "logits"));
}

}  // namespace vdla::zoo::detail
