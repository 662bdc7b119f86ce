#include <gtest/gtest.h>

#include "vdla/compiler/ir/verifier.h"
#include "vdla/compiler/passes/shape_inference.h"

namespace vdla::ir {
namespace {

TensorType f32(Shape s) { return TensorType{DType::F32, std::move(s), rt::Layout::RowMajor}; }

bool mentions(const std::vector<std::string>& problems, const std::string& needle) {
  for (const auto& p : problems)
    if (p.find(needle) != std::string::npos) return true;
  return false;
}

TEST(Verifier, AcceptsValidGraph) {
  Graph g;
  Value* x = g.addInput("x", f32({3}));
  Node* r = g.addNode("Relu", {x});
  g.addOutput(r->output());
  passes::inferShapes(g);
  EXPECT_TRUE(verifyGraph(g).empty());
}

TEST(Verifier, ReportsEachProblem) {
  Graph g;
  Value* x = g.addInput("x", f32({3}));
  Node* late = g.addNode("Relu", {x}, 1, {}, "late");
  Node* early = g.insertNodeBefore(late, "Relu", {late->output()}, 1, {}, "early");  // use before def
  Node* unknown = g.addNode("FancyOp", {x}, 1, {}, "fancy");
  Node* arity = g.addNode("Add", {x}, 1, {}, "lonely_add");
  g.addOutput(early->output());
  g.addOutput(unknown->output());
  g.addOutput(arity->output());
  auto problems = verifyGraph(g, {/*require_types=*/false});
  EXPECT_TRUE(mentions(problems, "node 'early' (Relu): input 0 'late_out' is not defined before it is used"));
  EXPECT_TRUE(mentions(problems, "node 'fancy' (FancyOp): unknown operator"));
  EXPECT_TRUE(mentions(problems, "node 'lonely_add' (Add): 1 inputs, expected 2..2"));
  EXPECT_TRUE(mentions(problems, "has no type") == false);
  EXPECT_TRUE(mentions(verifyGraph(g), "value 'late_out' has no type"));
  EXPECT_THROW(verifyGraphOrThrow(g), std::runtime_error);
}

TEST(Verifier, RequiresOutputs) {
  Graph g;
  g.name = "empty";
  g.addInput("x", f32({3}));
  EXPECT_TRUE(mentions(verifyGraph(g), "graph 'empty' has no outputs"));
}

}  // namespace
}  // namespace vdla::ir
