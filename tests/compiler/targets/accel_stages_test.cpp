// The vdla target's lowering as stages (accel-partition, accel-arena,
// accel-codegen, accel-token-check): each prints what it decided, the stages
// together make the same artifact as lowerForAccelerator, and the token check
// fails the compile on a broken program, naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "vdla/compiler/accel/lowering.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/stages.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/runtime/accel/device_program.h"

namespace vdla {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<ir::Graph> smallResidualNet() {
  zoo::ZooOptions zo;
  zo.image_size = 16;
  return zoo::buildModel("cnn", zo);
}

CompileOptions vdlaOptions() {
  CompileOptions options;
  options.target = "vdla";
  options.hw_config = "tiny";
  return options;
}

TEST(AccelStages, EachStagePrintsWhatItDecided) {
  std::unique_ptr<ir::Graph> g = smallResidualNet();
  std::ostringstream printed;
  CompileOptions options = vdlaOptions();
  options.pipeline.print_after_each = &printed;
  CompileReport report;
  compileGraph(*g, options, &report);
  const std::string out = printed.str();

  EXPECT_THAT(out, HasSubstr("// ----- plan after accel-partition (target vdla) -----\npartition: "));
  EXPECT_THAT(out, HasSubstr("// ----- plan after accel-arena (target vdla) -----\nactivation arena: "));
  EXPECT_THAT(out, HasSubstr("// ----- artifact after accel-codegen (target vdla) -----\nartifact '"));
  EXPECT_THAT(out,
              HasSubstr("// ----- artifact after accel-token-check (target vdla) (unchanged) -----\ntoken check: "));

  // A line per node: the first offloaded layer with its form and tiling, and
  // a node the CPU keeps with its reason.
  const auto first =
      std::find_if(report.layers.begin(), report.layers.end(), [](const auto& d) { return d.offloaded; });
  ASSERT_NE(first, report.layers.end());
  const size_t s = size_t(first - report.layers.begin());
  const std::string partition = out.substr(out.find("plan after accel-partition"));
  EXPECT_THAT(partition, HasSubstr("  [" + std::to_string(s) + "] " + first->name + " vdla.QConv: accelerator, "));
  EXPECT_THAT(partition, HasSubstr(" cycles\n"));
  EXPECT_THAT(partition, HasSubstr(": cpu ("));
  const std::string arena = out.substr(out.find("plan after accel-arena"));
  EXPECT_THAT(arena, HasSubstr("  [" + std::to_string(s) + "] " + first->name + ": x @"));
  const std::string tokens = out.substr(out.find("artifact after accel-token-check"));
  EXPECT_THAT(tokens, HasSubstr("  program 0 '" + first->name + "': load->compute "));
}

TEST(AccelStages, MakeTheArtifactLowerForAcceleratorMakes) {
  std::unique_ptr<ir::Graph> g = smallResidualNet();
  CompileOptions options = vdlaOptions();
  options.llvm_cpu_fallback = false;  // the accelerator's artifact as accel-codegen left it
  CompileReport report;
  const rt::Artifact staged = compileGraph(*g, options, &report);

  // The graph is quantised in place: lowering it again in one call.
  std::vector<accel::LayerDecision> decisions;
  const rt::Artifact direct = accel::lowerForAccelerator(*g, hw::loadConfig("tiny"), options.accel, &decisions);
  EXPECT_EQ(rt::serializeArtifact(staged), rt::serializeArtifact(direct));
  ASSERT_EQ(decisions.size(), report.layers.size());
  for (size_t i = 0; i < decisions.size(); ++i) {
    EXPECT_EQ(decisions[i].offloaded, report.layers[i].offloaded) << decisions[i].name;
    EXPECT_EQ(decisions[i].program, report.layers[i].program) << decisions[i].name;
    EXPECT_EQ(decisions[i].instructions, report.layers[i].instructions) << decisions[i].name;
  }
}

TEST(AccelStages, TokenCheckFailsTheCompileNamingTheProgram) {
  std::unique_ptr<ir::Graph> g = smallResidualNet();
  CompileOptions options = vdlaOptions();
  options.llvm_cpu_fallback = false;
  rt::Artifact artifact = compileGraph(*g, options);
  const hw::HwConfig cfg = hw::loadConfig("tiny");

  // The last program with a GEMM that pops a token loses that pop: a token is left behind.
  rt::accel::DeviceModule module = rt::accel::deserializeDeviceModule(artifact.blobs.at(rt::accel::kProgramsBlob), cfg);
  auto popping = [](const hw::Instruction& i) { return i.opcode == hw::Opcode::Gemm && i.pop_prev; };
  size_t broken = module.programs.size();
  while (broken > 0 &&
         std::none_of(module.programs[broken - 1].insns.begin(), module.programs[broken - 1].insns.end(), popping))
    --broken;
  ASSERT_GT(broken, 0u) << "no program has a GEMM that pops a token";
  --broken;
  std::vector<hw::Instruction>& insns = module.programs[broken].insns;
  auto gemm = std::find_if(insns.begin(), insns.end(), popping);
  gemm->pop_prev = false;
  artifact.blobs[rt::accel::kProgramsBlob] = rt::accel::serializeDeviceModule(module, cfg);

  Target target;
  target.name = "vdla";
  target.stages = {stages::accelTokenCheck()};
  CompileReport report;
  TargetState state{*g, options, cfg, report, std::move(artifact)};
  try {
    runTargetStages(target, state, PassManagerOptions{});
    ADD_FAILURE() << "a broken program passed the token check";
  } catch (const PassError& e) {
    EXPECT_EQ(e.pass(), "accel-token-check");
    const std::string msg = e.what();
    EXPECT_THAT(msg, HasSubstr("target 'vdla' stage 'accel-token-check' failed: device program " +
                               std::to_string(broken) + ": program '" + module.programs[broken].name + "': "));
    EXPECT_THAT(msg, HasSubstr("left in load->compute"));
  }
}

TEST(AccelStages, ArenaVerifierFindsOverlappingPlaces) {
  std::unique_ptr<ir::Graph> g = smallResidualNet();
  CompileOptions options = vdlaOptions();
  options.llvm_cpu_fallback = false;
  compileGraph(*g, options);  // quantises the graph in place
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  accel::AccelLowering plan = accel::partitionForAccelerator(*g, cfg, options.accel);
  accel::verifyPartition(*g, plan);
  accel::planActivationArena(*g, cfg, plan);
  accel::verifyArena(plan);

  // Two places live together moved onto one another.
  ASSERT_GE(plan.buffers.size(), 2u);
  accel::ArenaBuffer& a = plan.buffers[0];
  auto b = std::find_if(plan.buffers.begin() + 1, plan.buffers.end(),
                        [&](const accel::ArenaBuffer& x) { return x.first <= a.last && a.first <= x.last; });
  ASSERT_NE(b, plan.buffers.end());
  b->offset = a.offset;
  try {
    accel::verifyArena(plan);
    ADD_FAILURE() << "overlapping places passed";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("overlaps the"));
  }
}

}  // namespace
}  // namespace vdla
