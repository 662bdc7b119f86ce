// The target stages' driver (compileForTarget, runTargetStages) on made-up
// targets: a stage that throws, one that leaves an invalid artifact or graph,
// stages that make no artifact; each error names the stage and the target.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "vdla/compiler/compile.h"

namespace vdla {
namespace {

using ::testing::HasSubstr;

// y = (x + c) * x: two nodes the graph passes leave alone.
std::unique_ptr<ir::Graph> tinyGraph() {
  auto g = std::make_unique<ir::Graph>();
  g->name = "tiny";
  ir::Value* x = g->addInput("x", rt::TensorType{rt::DType::F32, {2, 4}});
  ir::Value* c = g->addConstant("c", rt::Tensor::fromVector<float>({4}, {0.5f, -1.0f, 2.0f, 0.0f}));
  ir::Node* add = g->addNode("Add", {x, c}, 1, {}, "add");
  ir::Node* mul = g->addNode("Mul", {add->output(), x}, 1, {}, "mul");
  g->addOutput(mul->output());
  return g;
}

Target fakeTarget(std::vector<TargetStage> stages) {
  Target t;
  t.name = "fake";
  t.available = true;
  t.stages = std::move(stages);
  return t;
}

TargetStage artifactStage(std::string name, std::function<void(rt::Artifact&)> change) {
  return {std::move(name), StageKind::Artifact, StagePhase::Lowering, [change](TargetState& s) {
            change(*s.artifact);
            return true;
          }};
}

PassError compileExpectingError(const Target& target, bool verify = true) {
  std::unique_ptr<ir::Graph> g = tinyGraph();
  CompileOptions options;
  options.pipeline.verify_each = verify;
  try {
    compileForTarget(*g, options, target);
  } catch (const PassError& e) {
    return e;
  }
  ADD_FAILURE() << "target '" << target.name << "' compiled";
  return PassError("", "");
}

TEST(TargetStages, RunInOrderAfterTheGraphPasses) {
  std::vector<std::string> ran;
  auto note = [&ran](std::string name, StageKind kind, StagePhase phase) {
    return TargetStage{name, kind, phase, [&ran, name](TargetState&) {
                         ran.push_back(name);
                         return false;
                       }};
  };
  const Target t = fakeTarget({note("first", StageKind::Graph, StagePhase::Quantize), stages::refLower(),
                               note("last", StageKind::Artifact, StagePhase::Lowering)});
  std::unique_ptr<ir::Graph> g = tinyGraph();
  CompileOptions options;
  options.hw_config = "tiny";
  CompileReport report;
  const rt::Artifact a = compileForTarget(*g, options, t, &report);
  EXPECT_EQ(ran, (std::vector<std::string>{"first", "last"}));
  ASSERT_GE(report.passes.passes.size(), 3u);
  const size_t n = report.passes.passes.size();
  EXPECT_EQ(report.passes.passes[n - 3].name, "first");
  EXPECT_EQ(report.passes.passes[n - 2].name, "ref-lower");
  EXPECT_EQ(report.passes.passes[n - 1].name, "last");
  EXPECT_EQ(report.passes.passes[n - 1].target, "fake");
  EXPECT_TRUE(report.passes.passes[0].target.empty());
  EXPECT_EQ(a.steps.size(), 2u);
  EXPECT_EQ(a.hw_config_name, "tiny");
}

TEST(TargetStages, ThrowingStageIsNamed) {
  const Target t = fakeTarget(
      {stages::refLower(), artifactStage("explode", [](rt::Artifact&) { throw std::runtime_error("boom"); })});
  const PassError e = compileExpectingError(t);
  EXPECT_EQ(e.pass(), "explode");
  EXPECT_EQ(e.target(), "fake");
  EXPECT_EQ(std::string(e.what()), "target 'fake' stage 'explode' failed: boom");
}

TEST(TargetStages, InvalidArtifactIsCaughtAfterTheStage) {
  const Target t =
      fakeTarget({stages::refLower(), artifactStage("corrupt", [](rt::Artifact& a) { a.outputs = {999}; }),
                  artifactStage("never", [](rt::Artifact&) { ADD_FAILURE() << "ran after a bad stage"; })});
  const PassError e = compileExpectingError(t);
  EXPECT_EQ(e.pass(), "corrupt");
  EXPECT_THAT(e.what(), HasSubstr("after target 'fake' stage 'corrupt': "));
}

TEST(TargetStages, BrokenGraphIsCaughtAfterAGraphStage) {
  TargetStage rename{"rename", StageKind::Graph, StagePhase::Quantize, [](TargetState& s) {
                       s.graph.nodes().back()->setName(s.graph.nodes().front()->name());
                       return true;
                     }};
  const PassError e = compileExpectingError(fakeTarget({rename, stages::refLower()}));
  EXPECT_EQ(e.pass(), "rename");
  EXPECT_THAT(e.what(), HasSubstr("after target 'fake' stage 'rename': "));
  EXPECT_THAT(e.what(), HasSubstr("two nodes are named 'add'"));
}

TEST(TargetStages, StagesThatMakeNoArtifact) {
  TargetStage idle{"idle", StageKind::Graph, StagePhase::Quantize, [](TargetState&) { return false; }};
  EXPECT_THAT(compileExpectingError(fakeTarget({idle})).what(),
              HasSubstr("target 'fake': its stages made no artifact"));
  // An artifact stage must leave one (checked with the verification).
  TargetStage empty{"empty", StageKind::Artifact, StagePhase::Lowering, [](TargetState&) { return true; }};
  EXPECT_THAT(compileExpectingError(fakeTarget({empty})).what(),
              HasSubstr("after target 'fake' stage 'empty': it made no artifact"));
}

TEST(TargetStages, PrintsIrOrArtifactAfterEachStage) {
  TargetStage idle{"idle", StageKind::Graph, StagePhase::Quantize, [](TargetState&) { return false; }};
  const Target t = fakeTarget({idle, stages::refLower()});
  std::unique_ptr<ir::Graph> g = tinyGraph();
  std::ostringstream out, timing;
  CompileOptions options;
  options.pipeline.print_after_each = &out;
  options.pipeline.timing_report = &timing;
  compileForTarget(*g, options, t);
  const std::string s = out.str();
  EXPECT_THAT(s, HasSubstr("// ----- IR after idle (target fake) (unchanged) -----\n"));
  EXPECT_THAT(s, HasSubstr("// ----- artifact after ref-lower (target fake) -----\n"
                           "artifact 'tiny': target ref, config pynq; 2 steps"));
  EXPECT_THAT(s, HasSubstr("  kernels: ref.Add x1 ref.Mul x1\n"));
  EXPECT_THAT(timing.str(), HasSubstr("idle (fake)"));
  EXPECT_THAT(timing.str(), HasSubstr("ref-lower (fake)"));
}

}  // namespace
}  // namespace vdla
