// The architectures of the model zoo, one file each (private to src/zoo).
#pragma once

#include "model_builder.h"
#include "vdla/compiler/zoo/model_zoo.h"

namespace vdla::zoo::detail {

// depth 18, 34 (BasicBlock) or 50 (Bottleneck).
void buildResNet(ModelBuilder& b, int depth, const ZooOptions& options);
void buildMobileNetV2(ModelBuilder& b, const ZooOptions& options);
void buildSmallCnn(ModelBuilder& b, const ZooOptions& options);

}  // namespace vdla::zoo::detail
