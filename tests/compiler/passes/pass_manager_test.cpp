#include "vdla/compiler/pass_manager.h"

#include <sstream>

#include "pass_test_util.h"

namespace vdla {
namespace {

using rt::Tensor;
using testing::f32;
using testing::randomTensor;

ir::Graph* smallGraph(ir::Graph& g) {
  ir::Value* x = g.addInput("x", f32({2, 3}));
  g.addOutput(g.addNode("Relu", {x}, 1, {}, "relu")->output());
  passes::inferShapes(g);
  return &g;
}

TEST(PassManager, RunsPassesInOrderAndReports) {
  ir::Graph g;
  smallGraph(g);
  std::vector<std::string> order;
  PassManager pm;
  pm.add("first", [&](ir::Graph&) {
    order.push_back("first");
    return false;
  });
  pm.add("second", [&](ir::Graph&) { order.push_back("second"); });  // void: counts as changed
  EXPECT_EQ(pm.passNames(), (std::vector<std::string>{"first", "second"}));
  std::ostringstream timing;
  pm.options().timing_report = &timing;
  PassReport report = pm.run(g);
  EXPECT_EQ(order, (std::vector<std::string>{"first", "second"}));
  ASSERT_EQ(report.passes.size(), 2u);
  EXPECT_FALSE(report.passes[0].changed);
  EXPECT_TRUE(report.passes[1].changed);
  EXPECT_EQ(report.passes[0].nodes_before, 1u);
  EXPECT_GE(report.total_seconds, 0.0);
  EXPECT_NE(timing.str().find("second"), std::string::npos);
  EXPECT_NE(timing.str().find("total"), std::string::npos);
}

TEST(PassManager, FailingPassIsNamed) {
  ir::Graph g;
  smallGraph(g);
  PassManager pm;
  pm.add("fine", [](ir::Graph&) { return false; });
  pm.add("explodes", [](ir::Graph&) -> bool { throw std::runtime_error("boom"); });
  try {
    pm.run(g);
    FAIL() << "expected PassError";
  } catch (const PassError& e) {
    EXPECT_EQ(e.pass(), "explodes");
    EXPECT_NE(std::string(e.what()).find("pass 'explodes' failed: boom"), std::string::npos) << e.what();
  }
}

TEST(PassManager, VerifiesAfterEachPass) {
  ir::Graph g;
  smallGraph(g);
  auto breaker = [](ir::Graph& gr) {
    gr.addNode("NoSuchOp", {gr.inputs()[0]}, 1, {}, "bogus");
    return true;
  };
  PassManager pm;
  pm.add("breaks-graph", breaker);
  try {
    pm.run(g);
    FAIL() << "expected PassError";
  } catch (const PassError& e) {
    EXPECT_EQ(e.pass(), "breaks-graph");
    EXPECT_NE(std::string(e.what()).find("bogus"), std::string::npos) << e.what();
  }
  ir::Graph h;
  smallGraph(h);
  PassManagerOptions no_verify;
  no_verify.verify_each = false;
  PassManager lax(no_verify);
  lax.add("breaks-graph", breaker);
  EXPECT_NO_THROW(lax.run(h));
}

TEST(PassManager, PrintsIrAfterEachPass) {
  ir::Graph g;
  smallGraph(g);
  std::ostringstream out;
  PassManagerOptions options;
  options.print_after_each = &out;
  PassManager pm(options);
  pm.add("noop", [](ir::Graph&) { return false; });
  pm.add("touch", [](ir::Graph&) { return true; });
  pm.run(g);
  EXPECT_NE(out.str().find("IR after noop (unchanged)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("IR after touch -----"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("Relu"), std::string::npos);

  std::ostringstream changed_only;
  options.print_after_each = &changed_only;
  options.print_only_changed = true;
  PassManager pm2(options);
  pm2.add("noop", [](ir::Graph&) { return false; });
  pm2.run(g);
  EXPECT_EQ(changed_only.str(), "");
}

TEST(StandardPipeline, PassOrder) {
  PassManager pm;
  addStandardPipeline(pm);
  EXPECT_EQ(pm.passNames(),
            (std::vector<std::string>{"fold-constants", "remove-identities", "qdq-to-integer-ops", "fold-batchnorm",
                                      "canonicalize-pooling", "simplify-reshapes", "fuse-gemm-bias", "fuse-activations",
                                      "eliminate-dead-code", "infer-shapes"}));
  PipelineOptions minimal;
  minimal.fold_constants = false;
  minimal.fold_batchnorm = false;
  minimal.fuse = false;
  PassManager pm2;
  addStandardPipeline(pm2, minimal);
  EXPECT_EQ(pm2.passNames(), (std::vector<std::string>{"infer-shapes", "remove-identities", "qdq-to-integer-ops",
                                                       "eliminate-dead-code", "infer-shapes"}));
}

// A graph as torch.onnx exports a small CNN without BN folding: Conv (no bias),
// BatchNormalization, Relu, Identity, a Shape-computed view, Dropout and Linear.
void buildTorchStyle(ir::Graph& g) {
  g.name = "torch_style";
  ir::Value* x = g.addInput("input", f32({2, 3, 8, 8}));
  rt::AttributeMap conv_attrs;
  conv_attrs.set("kernel_shape", std::vector<int64_t>{3, 3});
  conv_attrs.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  conv_attrs.set("strides", std::vector<int64_t>{2, 2});
  ir::Value* y =
      g.addNode("Conv", {x, g.addConstant("conv.weight", randomTensor({6, 3, 3, 3}, 1))}, 1, conv_attrs, "conv")
          ->output();
  std::vector<ir::Value*> bn = {y};
  bn.push_back(g.addConstant("bn.weight", randomTensor({6}, 2, 0.5f, 1.5f)));
  bn.push_back(g.addConstant("bn.bias", randomTensor({6}, 3)));
  bn.push_back(g.addConstant("bn.running_mean", randomTensor({6}, 4)));
  bn.push_back(g.addConstant("bn.running_var", randomTensor({6}, 5, 0.5f, 1.5f)));
  y = g.addNode("BatchNormalization", bn, 1, {}, "bn")->output();
  y = g.addNode("Relu", {y}, 1, {}, "relu")->output();
  y = g.addNode("Identity", {y}, 1, {}, "identity")->output();
  y = g.addNode("GlobalAveragePool", {y}, 1, {}, "pool")->output();
  ir::Value* shape = g.addNode("Shape", {y}, 1, {}, "shape")->output();
  rt::AttributeMap axis0;
  axis0.set("axis", int64_t{0});
  ir::Value* n =
      g.addNode("Gather", {shape, g.addConstant("zero", Tensor::scalar<int64_t>(0))}, 1, axis0, "gather")->output();
  ir::Value* n1 =
      g.addNode("Unsqueeze", {n, g.addConstant("axes", Tensor::fromVector<int64_t>({1}, {0}))}, 1, {}, "unsqueeze")
          ->output();
  ir::Value* target =
      g.addNode("Concat", {n1, g.addConstant("m1", Tensor::fromVector<int64_t>({1}, {-1}))}, 1, axis0, "concat")
          ->output();
  y = g.addNode("Reshape", {y, target}, 1, {}, "view")->output();
  y = g.addNode("Dropout", {y}, 1, {}, "dropout")->output();
  ir::Value* mm =
      g.addNode("MatMul", {y, g.addConstant("fc.weight_t", randomTensor({6, 4}, 6))}, 1, {}, "fc_mm")->output();
  g.addOutput(g.addNode("Add", {mm, g.addConstant("fc.bias", randomTensor({4}, 7))}, 1, {}, "fc_add", "", {"logits"})
                  ->output());
}

TEST(StandardPipeline, CleansAPyTorchStyleGraph) {
  ir::Graph g, reference;
  buildTorchStyle(g);
  buildTorchStyle(reference);
  std::vector<rt::Tensor> input = {randomTensor({2, 3, 8, 8}, 42)};
  PipelineOptions options;
  std::ostringstream printed;
  options.print_after_each = &printed;
  // The reference run needs a typed graph; the Reshape's target is computed, so
  // only folding can type it (plain inferShapes cannot).
  passes::foldConstants(reference);
  std::vector<rt::Tensor> before = runReference(reference, input);
  PassReport report = runStandardPipeline(g, options);
  EXPECT_EQ(report.passes.size(), 10u);
  EXPECT_EQ(testing::opHistogram(g),
            (std::map<std::string, int>{{"Conv", 1}, {"GlobalAveragePool", 1}, {"Flatten", 1}, {"Gemm", 1}}));
  ir::Node* conv = g.findNode("conv");
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->attrs().getString("activation"), "Relu");
  EXPECT_EQ(g.outputs()[0]->name(), "logits");
  EXPECT_NE(printed.str().find("IR after fuse-activations"), std::string::npos);
  std::vector<rt::Tensor> after = runReference(g, input);
  EXPECT_LE(testing::relativeError(after[0], before[0]), 1e-4);
}

TEST(StandardPipeline, ErrorNamesThePass) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", f32({2, 3}));
  ir::Value* y = g.addInput("y", f32({5}));
  g.addOutput(g.addNode("Add", {x, y}, 1, {}, "mismatch")->output());
  try {
    runStandardPipeline(g);
    FAIL() << "expected PassError";
  } catch (const PassError& e) {
    EXPECT_EQ(e.pass(), "fold-constants");
    EXPECT_NE(std::string(e.what()).find("mismatch"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla
