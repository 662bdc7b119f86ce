// The built-in selftest (23 cases against plain C++ references) on the cycle
// device, for the tiny and pynq configs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "vdla/driver/device.h"
#include "vdla/selftest/selftest.h"

namespace {

class CycleSelftest : public ::testing::TestWithParam<std::string> {};

TEST_P(CycleSelftest, AllCasesPass) {
  auto device = vdla::driver::createDevice("cycle", vdla::hw::loadConfig(GetParam()));
  vdla::selftest::SelftestOptions options;
  auto results = vdla::selftest::runSelftests(*device, options);
  EXPECT_EQ(results.size(), vdla::selftest::selftestCaseNames(device->config()).size());
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

// With building on demand switched off and an empty model cache, a config
// without a built-in model is refused (models built on demand are tested in
// on_demand_model_test.cpp).
TEST(CycleDevice, IsABackendAndRefusesConfigsWithoutAModel) {
  auto names = vdla::driver::deviceBackends();
  EXPECT_NE(std::find(names.begin(), names.end(), "cycle"), names.end());
  vdla::hw::HwConfig cfg = vdla::hw::loadConfig("zcu104");
  const std::string cache = ::testing::TempDir() + "vdla_selftest_no_models";
  std::filesystem::remove_all(cache);
  ::setenv("VDLA_CACHE_DIR", cache.c_str(), 1);
  ::setenv("VDLA_CYCLE_MODEL_BUILD", "0", 1);
  try {
    vdla::driver::createDevice("cycle", cfg);
    SUCCEED() << "this build has a zcu104 model";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no model for config 'zcu104'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("VDLA_CYCLE_MODEL_BUILD=0"), std::string::npos) << e.what();
  }
  ::unsetenv("VDLA_CYCLE_MODEL_BUILD");
  ::unsetenv("VDLA_CACHE_DIR");
}

INSTANTIATE_TEST_SUITE_P(Configs, CycleSelftest, ::testing::Values("tiny", "pynq"));

}  // namespace
