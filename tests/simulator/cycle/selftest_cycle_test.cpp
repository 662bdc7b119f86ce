// The built-in selftest (23 cases against plain C++ references) on the cycle
// device, for the tiny and pynq configs.
#include <gtest/gtest.h>

#include "vdla/driver/device.h"
#include "vdla/selftest/selftest.h"

namespace {

class CycleSelftest : public ::testing::TestWithParam<std::string> {};

TEST_P(CycleSelftest, AllCasesPass) {
  auto device = vdla::driver::createDevice("cycle", vdla::hw::loadConfig(GetParam()));
  vdla::selftest::SelftestOptions options;
  auto results = vdla::selftest::runSelftests(*device, options);
  EXPECT_EQ(results.size(), 27u);
  for (const auto& r : results) EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
}

TEST(CycleDevice, IsABackendAndRefusesConfigsWithoutAModel) {
  auto names = vdla::driver::deviceBackends();
  EXPECT_NE(std::find(names.begin(), names.end(), "cycle"), names.end());
  vdla::hw::HwConfig cfg = vdla::hw::loadConfig("zcu104");
  try {
    vdla::driver::createDevice("cycle", cfg);
    SUCCEED() << "this build has a zcu104 model";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("no Verilated model for config 'zcu104'"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, CycleSelftest, ::testing::Values("tiny", "pynq"));

}  // namespace
