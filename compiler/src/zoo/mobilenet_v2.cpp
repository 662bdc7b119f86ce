// torchvision.models.mobilenet_v2 with width_mult 1.0.
#include "zoo_models.h"

namespace vdla::zoo::detail {

namespace {

// Conv2dNormActivation: conv (no bias) + BatchNorm2d + ReLU6.
ir::Value* convBnRelu6(ModelBuilder& b, ir::Value* x, const std::string& p, int64_t in, int64_t out, int64_t kernel,
                       int64_t stride, int64_t groups) {
  x = b.conv(x, p + ".0", in, out, kernel, stride, (kernel - 1) / 2, groups);
  return b.relu6(b.batchNorm(x, p + ".1", out), p + ".2");
}

ir::Value* invertedResidual(ModelBuilder& b, ir::Value* x, const std::string& p, int64_t in, int64_t out,
                            int64_t stride, int64_t expand_ratio) {
  const int64_t hidden = in * expand_ratio;
  const bool use_residual = stride == 1 && in == out;
  ir::Value* y = x;
  int index = 0;
  auto next = [&] { return p + ".conv." + std::to_string(index++); };
  if (expand_ratio != 1) y = convBnRelu6(b, y, next(), in, hidden, 1, 1, 1);  // pointwise expansion
  y = convBnRelu6(b, y, next(), hidden, hidden, 3, stride, hidden);           // depthwise
  const std::string project = next();                                         // linear pointwise projection
  y = b.conv(y, project, hidden, out, 1, 1, 0);
  y = b.batchNorm(y, next(), out);
  return use_residual ? b.add(x, y, p + ".add") : y;
}

}  // namespace

void buildMobileNetV2(ModelBuilder& b, const ZooOptions& options) {
  // t (expansion), c (channels), n (repeats), s (first stride).
  static const int64_t settings[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                         {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  ir::Graph& g = b.graph();
  ir::Value* x = g.addInput(
      "input", {rt::DType::F32, {options.batch, 3, options.image_size, options.image_size}, rt::Layout::NCHW});
  int64_t in = 32;
  x = convBnRelu6(b, x, "features.0", 3, in, 3, 2, 1);
  int feature = 1;
  for (const auto& s : settings) {
    for (int64_t i = 0; i < s[2]; ++i) {
      x = invertedResidual(b, x, "features." + std::to_string(feature++), in, s[1], i == 0 ? s[3] : 1, s[0]);
      in = s[1];
    }
  }
  const int64_t last_channel = 1280;
  x = convBnRelu6(b, x, "features." + std::to_string(feature), in, last_channel, 1, 1, 1);
  x = b.flatten(b.globalAveragePool(x, "avgpool"), "flatten");
  x = b.dropout(x, "classifier.0", 0.2);
  g.addOutput(b.linear(x, "classifier.1", last_channel, options.num_classes, "logits"));
}

}  // namespace vdla::zoo::detail
