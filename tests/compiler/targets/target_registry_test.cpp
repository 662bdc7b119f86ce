// The target table: four targets, described alike, with the stages each runs
// and, for one this build lacks, the reason.
#include "vdla/compiler/target_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vdla {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TargetRegistry, ListsEveryTargetWithItsStages) {
  const std::vector<Target>& table = targetRegistry();
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(compileTargets(), (std::vector<std::string>{"ref", "vdla", "llvm", "cuda"}));
  EXPECT_THAT(findTarget("ref")->stageNames(), ElementsAre("ref-lower"));
  EXPECT_THAT(
      findTarget("vdla")->stageNames(),
      ElementsAre("qlinear-to-qconv", "quantize", "fold-reshapes", "accel-fuse-additions", "accel-fuse-expansions",
                  "accel-partition", "accel-arena", "accel-codegen", "accel-token-check", "cpu-fallback"));
  EXPECT_THAT(findTarget("llvm")->stageNames(), ElementsAre("qlinear-to-qconv", "llvm-codegen"));
  EXPECT_THAT(findTarget("cuda")->stageNames(), ElementsAre("ref-lower", "cuda-lower"));
  for (const Target& t : table) {
    EXPECT_FALSE(t.summary.empty()) << t.name;
    for (const TargetStage& s : t.stages) EXPECT_TRUE(s.run) << t.name << ": " << s.name;
    // An available target needs no excuse; an unavailable one gives one.
    EXPECT_EQ(t.unavailable_reason.empty(), t.available) << t.name;
  }
}

TEST(TargetRegistry, AvailabilityFollowsTheBuild) {
  // The back ends in libraries of their own are there without registering anything.
  EXPECT_TRUE(isTargetAvailable("ref"));
  EXPECT_TRUE(isTargetAvailable("vdla"));
  EXPECT_TRUE(isTargetAvailable("llvm"));
  EXPECT_EQ(isTargetAvailable("cuda"), bool(VDLA_TEST_HAS_CUDA));
  EXPECT_FALSE(isTargetAvailable("tpu"));
  EXPECT_EQ(findTarget("tpu"), nullptr);
}

TEST(TargetRegistry, RequireTargetExplains) {
  EXPECT_EQ(&requireTarget("vdla"), findTarget("vdla"));
  try {
    requireTarget("tpu");
    ADD_FAILURE() << "tpu";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown target 'tpu' (known: ref, vdla, llvm, cuda)");
  }
  for (const Target& t : targetRegistry()) {
    if (t.available) continue;
    try {
      requireTarget(t.name);
      ADD_FAILURE() << t.name;
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(),
                  HasSubstr("target '" + t.name + "' is not available in this build: " + t.unavailable_reason));
    }
  }
}

}  // namespace
}  // namespace vdla
