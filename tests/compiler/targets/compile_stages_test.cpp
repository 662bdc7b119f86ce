// compileGraph runs a target's stages after the graph passes as named,
// timed, printed and verified steps: the zoo's small residual network ("cnn")
// for targets vdla and llvm records every stage in order, --print-after-all
// shows each, --time-passes lists each, and a failing stage is named.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "vdla/compiler/compile.h"
#include "vdla/compiler/zoo/model_zoo.h"

namespace vdla {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

std::unique_ptr<ir::Graph> smallResidualNet() {
  zoo::ZooOptions zo;
  zo.image_size = 16;
  return zoo::buildModel("cnn", zo);
}

struct Compiled {
  rt::Artifact artifact;
  CompileReport report;
  std::string printed;  // --print-after-all
  std::string timing;   // --time-passes
};

Compiled compileWithDiagnostics(const std::string& target) {
  std::unique_ptr<ir::Graph> g = smallResidualNet();
  std::ostringstream printed, timing;
  CompileOptions options;
  options.target = target;
  options.hw_config = "tiny";
  options.pipeline.print_after_each = &printed;
  options.pipeline.timing_report = &timing;
  Compiled c;
  c.artifact = compileGraph(*g, options, &c.report);
  c.printed = printed.str();
  c.timing = timing.str();
  return c;
}

// The records of one target's stages, after the graph passes' records.
std::vector<std::string> stageRecords(const PassReport& report, const std::string& target) {
  std::vector<std::string> names;
  bool in_stages = false;
  for (const PassRecord& r : report.passes) {
    if (!r.target.empty()) {
      EXPECT_EQ(r.target, target) << r.name;
      in_stages = true;
      names.push_back(r.name);
    } else {
      EXPECT_FALSE(in_stages) << "graph pass '" << r.name << "' after a target stage";
    }
  }
  return names;
}

const PassRecord& record(const PassReport& report, const std::string& name) {
  for (const PassRecord& r : report.passes)
    if (r.name == name && !r.target.empty()) return r;
  throw std::runtime_error("no record of stage " + name);
}

TEST(CompileStages, VdlaRecordsPrintsAndTimesEveryStage) {
  const Compiled c = compileWithDiagnostics("vdla");
  const std::vector<std::string> expected = findTarget("vdla")->stageNames();
  EXPECT_THAT(stageRecords(c.report.passes, "vdla"), ElementsAreArray(expected));
  EXPECT_EQ(c.report.passes.passes.front().name, "fold-constants");

  // An fp32 model: nothing to convert, quantised here, lowered, CPU steps generated.
  EXPECT_FALSE(record(c.report.passes, "qlinear-to-qconv").changed);
  EXPECT_TRUE(record(c.report.passes, "quantize").changed);
  EXPECT_TRUE(record(c.report.passes, "fold-reshapes").changed);  // the classifier's Flatten and Reshape back
  EXPECT_TRUE(record(c.report.passes, "accel-partition").changed);
  EXPECT_TRUE(record(c.report.passes, "accel-arena").changed);
  EXPECT_TRUE(record(c.report.passes, "accel-codegen").changed);
  EXPECT_FALSE(record(c.report.passes, "accel-token-check").changed);  // a check
  EXPECT_TRUE(record(c.report.passes, "cpu-fallback").changed);
  EXPECT_TRUE(c.report.quantized);
  EXPECT_FALSE(c.report.layers.empty());
  EXPECT_GT(record(c.report.passes, "quantize").nodes_after, 0u);

  // The report's figures are the stages' times, by phase.
  const double quantize = record(c.report.passes, "qlinear-to-qconv").seconds +
                          record(c.report.passes, "quantize").seconds +
                          record(c.report.passes, "fold-reshapes").seconds;
  double lowering = 0;
  for (const char* stage : {"accel-fuse-additions", "accel-fuse-expansions", "accel-partition", "accel-arena",
                            "accel-codegen", "accel-token-check", "cpu-fallback"})
    lowering += record(c.report.passes, stage).seconds;
  EXPECT_DOUBLE_EQ(c.report.quantize_seconds, quantize);
  EXPECT_DOUBLE_EQ(c.report.lowering_seconds, lowering);
  EXPECT_GT(c.report.quantize_seconds, 0.0);
  double total = 0;
  for (const PassRecord& r : c.report.passes.passes) total += r.seconds;
  EXPECT_DOUBLE_EQ(c.report.passes.total_seconds, total);

  // --print-after-all: the IR after the graph stages, the artifact after the others.
  EXPECT_THAT(c.printed, HasSubstr("// ----- IR after fuse-activations -----"));
  EXPECT_THAT(c.printed, HasSubstr("// ----- IR after qlinear-to-qconv (target vdla) (unchanged) -----"));
  EXPECT_THAT(c.printed, HasSubstr("// ----- IR after quantize (target vdla) -----"));
  EXPECT_THAT(c.printed, HasSubstr("// ----- plan after accel-partition (target vdla) -----"));
  EXPECT_THAT(c.printed, HasSubstr("// ----- plan after accel-arena (target vdla) -----"));
  EXPECT_THAT(c.printed, HasSubstr("// ----- artifact after accel-codegen (target vdla) -----"));
  EXPECT_THAT(c.printed, HasSubstr("// ----- artifact after accel-token-check (target vdla) (unchanged) -----"));
  EXPECT_THAT(c.printed, HasSubstr("// ----- artifact after cpu-fallback (target vdla) -----"));
  const std::string after_lower = c.printed.substr(c.printed.find("artifact after accel-codegen"));
  EXPECT_THAT(after_lower, HasSubstr("target vdla, config tiny"));
  EXPECT_THAT(after_lower, HasSubstr("vdla.conv x"));
  EXPECT_THAT(after_lower, HasSubstr("accelerator programs: "));
  EXPECT_THAT(after_lower, HasSubstr("vdla.programs ("));
  // The quantised IR is printed after quantize (vdla.QConv appears there first).
  const size_t quantize_at = c.printed.find("IR after quantize");
  EXPECT_EQ(c.printed.substr(0, quantize_at).find("vdla.QConv"), std::string::npos);
  EXPECT_NE(c.printed.find("vdla.QConv", quantize_at), std::string::npos);

  // --time-passes: one table, graph passes and target stages.
  for (const std::string& stage : expected) EXPECT_THAT(c.timing, HasSubstr(stage + " (vdla)"));
  EXPECT_THAT(c.timing, HasSubstr("fuse-activations"));
  EXPECT_EQ(c.timing.find("total"), c.timing.rfind("total")) << "one table, not one per half";
}

TEST(CompileStages, LlvmRecordsPrintsAndTimesEveryStage) {
  const Compiled c = compileWithDiagnostics("llvm");
  EXPECT_THAT(stageRecords(c.report.passes, "llvm"), ElementsAreArray({"qlinear-to-qconv", "llvm-codegen"}));
  EXPECT_FALSE(record(c.report.passes, "qlinear-to-qconv").changed);
  EXPECT_TRUE(record(c.report.passes, "llvm-codegen").changed);
  EXPECT_DOUBLE_EQ(c.report.lowering_seconds, record(c.report.passes, "llvm-codegen").seconds);
  EXPECT_TRUE(c.report.kernels);  // JIT'ed
  EXPECT_EQ(c.artifact.target, "llvm");
  EXPECT_EQ(c.artifact.hw_config_name, "tiny");
  EXPECT_THAT(c.printed, HasSubstr("// ----- artifact after llvm-codegen (target llvm) -----"));
  EXPECT_THAT(c.printed, HasSubstr("target llvm, config tiny"));
  EXPECT_THAT(c.printed, HasSubstr("  kernels: llvm.* x"));
  EXPECT_THAT(c.timing, HasSubstr("llvm-codegen (llvm)"));
  EXPECT_THAT(c.timing, HasSubstr("qlinear-to-qconv (llvm)"));
}

TEST(CompileStages, RefRecordsItsOneStage) {
  // Without printing or timing asked for, every stage is still recorded.
  std::unique_ptr<ir::Graph> g = smallResidualNet();
  CompileOptions options;
  options.target = "ref";
  CompileReport report;
  compileGraph(*g, options, &report);
  EXPECT_THAT(stageRecords(report.passes, "ref"), ElementsAreArray({"ref-lower"}));
}

TEST(CompileStages, FailingStageIsNamedWithItsTarget) {
  // A real stage: calibration samples that do not match the graph's inputs.
  std::unique_ptr<ir::Graph> g = smallResidualNet();
  CompileOptions options;
  options.target = "vdla";
  options.calibration = {{}};  // one sample with no tensors
  try {
    compileGraph(*g, options);
    ADD_FAILURE() << "compiled with a bad calibration sample";
  } catch (const PassError& e) {
    EXPECT_EQ(e.pass(), "quantize");
    EXPECT_EQ(e.target(), "vdla");
    EXPECT_THAT(e.what(), HasSubstr("target 'vdla' stage 'quantize' failed: "));
  }
}

}  // namespace
}  // namespace vdla
