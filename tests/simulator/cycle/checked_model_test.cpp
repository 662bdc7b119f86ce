// The checked cycle model (VDLA_CYCLE_MODEL_CHECKS=1, docs/hardware.md,
// "Assertions and the checked model"): the RTL Verilated with its assertions
// on and random X initialisation, built on demand into a cache owned by this
// test (VDLA_TEST_MODEL_CACHE). Random progen programs on tiny and pynq under
// three X seeds must pass every assertion and match fsim bit for bit: a
// register that needs a reset and lacks one, or logic that reads a value it
// never wrote, gives other results under other seeds; an AXI rule, a queue
// bound or an SRAM index broken by any program fails the run with the
// assertion's message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "differential.h"
#include "model_cache.h"
#include "vdla/driver/device.h"
#include "vdla/hw/config.h"
#include "vdla/hw/error.h"
#include "vdla/sim/cycle_sim.h"

namespace vdla::cycletest {
namespace {

namespace fs = std::filesystem;
using sim::progen::generateProgram;

class CheckedModel : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("VDLA_CACHE_DIR", VDLA_TEST_MODEL_CACHE, 1);
    ::setenv("VDLA_CYCLE_MODEL_CHECKS", "1", 1);
    ::unsetenv("VDLA_CYCLE_MODEL_SEED");
    ::unsetenv("VDLA_CYCLE_MODEL_BUILD");
  }
  void TearDown() override {
    ::unsetenv("VDLA_CYCLE_MODEL_CHECKS");
    ::unsetenv("VDLA_CYCLE_MODEL_SEED");
  }

  // `count` random programs per X seed, on fsim and on a checked cycle device
  // made under that seed.
  static void compareWithFsim(const std::string& config, uint64_t first_program, int count) {
    const hw::HwConfig cfg = hw::loadConfig(config);
    const sim::CycleModelInfo info = sim::prepareCycleModel(cfg);
    ASSERT_NE(info.source, sim::CycleModelSource::BuiltIn) << "the checked model must not be the built-in one";
    ASSERT_NE(info.path.find("-checked"), std::string::npos) << info.path;
    auto golden = driver::createDevice("fsim", cfg);
    for (const char* seed : {"1", "2", "3"}) {
      ::setenv("VDLA_CYCLE_MODEL_SEED", seed, 1);
      auto cycle = driver::createDevice("cycle", cfg);
      for (int k = 0; k < count; ++k) {
        const auto program = generateProgram(cfg, first_program + uint64_t(k));
        ASSERT_EQ(progentest::runDifferential(*golden, *cycle, program, std::chrono::seconds(300)), "")
            << config << ", X seed " << seed << ", program seed " << first_program + uint64_t(k);
      }
    }
  }
};

TEST_F(CheckedModel, TinyMatchesFsimUnderThreeSeeds) { compareWithFsim("tiny", 9100, 10); }

TEST_F(CheckedModel, PynqMatchesFsimUnderThreeSeeds) { compareWithFsim("pynq", 9200, 6); }

// The checks are live: in a copy of the model kit whose load path may issue
// read bursts of 64 beats (vdla_xfer_read's MAX_BURST doubled, a bug the
// module's own check cannot see), the AXI check of vdla_top fires, and the
// run ends in an error that quotes it rather than in a wrong result or an
// abort. The copy is a kit of its own (VDLA_CYCLE_MODEL_KIT), cached apart.
TEST_F(CheckedModel, ABrokenInvariantStopsTheRunWithTheAssertion) {
  const fs::path kit = fs::path(VDLA_TEST_MODEL_CACHE) / "broken_kit";
  fs::remove_all(kit);
  fs::copy(sim::cycleModelBuildKit(), kit, fs::copy_options::recursive);
  const fs::path rtl = kit / "rtl" / "vdla_xfer_read.sv";
  std::string text;
  {
    std::ifstream in(rtl);
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
  }
  const std::string from = "localparam int MAX_BURST = vdla_pkg::AXI_MAX_BURST;";
  ASSERT_NE(text.find(from), std::string::npos) << "vdla_xfer_read.sv no longer declares " << from;
  text.replace(text.find(from), from.size(), "localparam int MAX_BURST = 2 * vdla_pkg::AXI_MAX_BURST;");
  std::ofstream(rtl) << text;
  ::setenv("VDLA_CYCLE_MODEL_KIT", kit.c_str(), 1);
  struct Unset {
    ~Unset() { ::unsetenv("VDLA_CYCLE_MODEL_KIT"); }
  } unset;

  const hw::HwConfig cfg = hw::loadConfig("tiny");
  ASSERT_NE(sim::cycleModelDir(cfg).find("-checked"), std::string::npos);
  auto golden = driver::createDevice("fsim", cfg);
  auto cycle = driver::createDevice("cycle", cfg);
  std::string failure;
  for (uint64_t seed = 9100; seed < 9130 && failure.empty(); ++seed)
    failure = progentest::runDifferential(*golden, *cycle, generateProgram(cfg, seed), std::chrono::seconds(300));
  EXPECT_NE(failure.find("RTL assertion failed"), std::string::npos) << failure;
  EXPECT_NE(failure.find("vdla_top: read burst of"), std::string::npos) << failure;
}

TEST_F(CheckedModel, FastAndCheckedModelsAreCachedApart) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  const std::string checked = sim::cycleModelDir(cfg);
  ::setenv("VDLA_CYCLE_MODEL_CHECKS", "0", 1);
  const std::string fast = sim::cycleModelDir(cfg);
  EXPECT_NE(checked, fast);
  EXPECT_EQ(checked, fast + "-checked");
}

TEST_F(CheckedModel, SettingsAreParsedStrictly) {
  const hw::HwConfig cfg = hw::loadConfig("tiny");
  ::setenv("VDLA_CYCLE_MODEL_CHECKS", "maybe", 1);
  EXPECT_THROW(sim::cycleModelChecks(), Error);
  ::setenv("VDLA_CYCLE_MODEL_CHECKS", "on", 1);
  EXPECT_TRUE(sim::cycleModelChecks());
  for (const char* bad : {"0", "-1", " 5", "5x", "2147483648", "99999999999"}) {
    ::setenv("VDLA_CYCLE_MODEL_SEED", bad, 1);
    EXPECT_THROW(sim::cycleModelXSeed(), Error) << bad;
  }
  ::setenv("VDLA_CYCLE_MODEL_SEED", "2147483647", 1);
  EXPECT_EQ(sim::cycleModelXSeed(), 2147483647u);
  ::unsetenv("VDLA_CYCLE_MODEL_SEED");
  EXPECT_EQ(sim::cycleModelXSeed(), 1u);
}

}  // namespace
}  // namespace vdla::cycletest
