#include <gtest/gtest.h>

#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/reference_executor.h"

namespace vdla {
namespace {

using ir::DType;
using rt::Tensor;

TEST(ReferenceExecutor, BroadcastAddThenRelu) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DType::F32, {2, 3}, rt::Layout::RowMajor});
  ir::Value* b = g.addConstant("b", Tensor::fromVector<float>({3}, {-1, 0, 1}));
  ir::Node* add = g.addNode("Add", {x, b});
  ir::Node* relu = g.addNode("Relu", {add->output()});
  g.addOutput(relu->output());
  passes::inferShapes(g);
  auto out = runReference(g, {Tensor::fromVector<float>({2, 3}, {0, 0, 0, 2, -3, 4})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].toVector<float>(), (std::vector<float>{0, 0, 1, 1, 0, 5}));
}

TEST(ReferenceExecutor, RejectsWrongInputType) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", {DType::F32, {2}, rt::Layout::RowMajor});
  g.addOutput(g.addNode("Relu", {x})->output());
  passes::inferShapes(g);
  EXPECT_THROW(runReference(g, {Tensor::fromVector<float>({3}, {1, 2, 3})}), std::invalid_argument);
  EXPECT_THROW(runReference(g, {}), std::invalid_argument);
}

}  // namespace
}  // namespace vdla
