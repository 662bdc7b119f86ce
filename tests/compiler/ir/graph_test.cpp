#include <gtest/gtest.h>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/ir/printer.h"
#include "vdla/compiler/passes/shape_inference.h"

namespace vdla::ir {
namespace {

TensorType f32(Shape s) { return TensorType{DType::F32, std::move(s), rt::Layout::RowMajor}; }

TEST(Graph, BuildInferAndPrint) {
  Graph g;
  g.name = "tiny";
  Value* x = g.addInput("x", f32({1, 4}));
  Value* b = g.addConstant("b", Tensor::fromVector<float>({4}, {1, 2, 3, 4}));
  Node* add = g.addNode("Add", {x, b}, 1, {}, "add0");
  Node* relu = g.addNode("Relu", {add->output()}, 1, {}, "relu0");
  g.addOutput(relu->output());
  passes::inferShapes(g);
  EXPECT_EQ(relu->output()->type(), f32({1, 4}));
  std::string text = graphToString(g);
  EXPECT_NE(text.find("%add0_out: f32[1,4] = Add(%x, %b)  # add0"), std::string::npos) << text;
  EXPECT_NE(text.find("return %relu0_out"), std::string::npos) << text;
}

TEST(Graph, ReplaceUsesAndRemove) {
  Graph g;
  Value* x = g.addInput("x", f32({2}));
  Node* id = g.addNode("Identity", {x});
  Node* relu = g.addNode("Relu", {id->output()});
  g.addOutput(relu->output());
  g.replaceAllUsesWith(id->output(), x);
  EXPECT_EQ(relu->input(0), x);
  g.removeNode(id);
  EXPECT_EQ(g.numNodes(), 1u);
  EXPECT_THROW(g.removeNode(relu), std::logic_error);  // its output is a graph output
}

TEST(Graph, TopologicalSortRestoresOrderAndDetectsCycles) {
  Graph g;
  Value* x = g.addInput("x", f32({2}));
  Node* a = g.addNode("Relu", {x}, 1, {}, "a");
  Node* b = g.addNode("Relu", {a->output()}, 1, {}, "b");
  g.addOutput(b->output());
  // Make a read b's output: b -> a -> b is a cycle.
  a->setInput(0, b->output());
  EXPECT_THROW(g.topologicalSort(), std::runtime_error);
  a->setInput(0, x);
  // Insert a node at the front that reads b: sorting must move it after b.
  Node* c = g.insertNodeBefore(a, "Relu", {b->output()}, 1, {}, "c");
  g.topologicalSort();
  auto nodes = g.nodes();
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(nodes[0], a);
  EXPECT_EQ(nodes[1], b);
  EXPECT_EQ(nodes[2], c);
}

TEST(Graph, UniqueNames) {
  Graph g;
  Value* x = g.addInput("x", f32({2}));
  Node* n1 = g.addNode("Relu", {x});
  Node* n2 = g.addNode("Relu", {x});
  EXPECT_NE(n1->name(), n2->name());
  EXPECT_NE(n1->output()->name(), n2->output()->name());
}

TEST(ShapeInference, ErrorsNameTheNode) {
  Graph g;
  Value* x = g.addInput("x", f32({2, 3}));
  Value* y = g.addInput("y", f32({4}));
  Node* add = g.addNode("Add", {x, y}, 1, {}, "bad_add");
  g.addOutput(add->output());
  try {
    passes::inferShapes(g);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("node 'bad_add' (Add): shapes [2,3] and [4] do not broadcast"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vdla::ir
