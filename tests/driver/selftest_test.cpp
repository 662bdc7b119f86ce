// The built-in self-test: it passes on fsim for every shipped config, and it
// can fail (negative control with a device that corrupts what it reads back).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "vdla/driver/fsim_device.h"
#include "vdla/hw/config.h"
#include "vdla/selftest/blocked_gemm.h"
#include "vdla/selftest/selftest.h"

namespace vdla::selftest {
namespace {

using ::testing::HasSubstr;

class SelftestOnFsim : public ::testing::TestWithParam<std::string> {};

TEST_P(SelftestOnFsim, EveryCasePasses) {
  hw::HwConfig cfg = hw::loadConfig(GetParam());
  driver::FsimDevice dev(cfg);
  SelftestOptions opts;
  std::vector<std::string> seen;
  std::vector<CaseResult> results = runSelftests(dev, opts, [&](const CaseResult& r) { seen.push_back(r.name); });
  const std::vector<std::string> names = selftestCaseNames(cfg);
  ASSERT_FALSE(names.empty());
  ASSERT_EQ(results.size(), names.size());
  EXPECT_EQ(seen, names) << "on_case must be called once per case, in order";
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size()) << "case names must be unique";
  bool has_gemm = false, has_alu = false, has_pad = false;
  for (size_t i = 0; i < results.size(); ++i) {
    const CaseResult& r = results[i];
    EXPECT_EQ(r.name, names[i]);
    EXPECT_TRUE(r.passed) << r.name << ": " << r.detail;
    EXPECT_FALSE(r.detail.empty()) << r.name;
    EXPECT_GE(r.seconds, 0.0);
    EXPECT_GT(r.stats.totalInstructions(), 1u) << r.name << " ran no program";
    if (r.name.rfind("gemm-", 0) == 0) {
      has_gemm = true;
      EXPECT_GT(r.stats.gemm_macs, 0u) << r.name;
    }
    has_alu |= r.name.rfind("alu-", 0) == 0;
    has_pad |= r.name.rfind("padded-load-", 0) == 0;
  }
  EXPECT_TRUE(has_gemm && has_alu && has_pad);
}

INSTANTIATE_TEST_SUITE_P(BuiltinConfigs, SelftestOnFsim, ::testing::ValuesIn(hw::builtinConfigNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           // gtest names take letters, digits and '_' only (pynq-classic)
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(Selftest, ShippedConfigsAreAllCovered) {
  std::vector<std::string> names = hw::builtinConfigNames();
  EXPECT_THAT(names, ::testing::IsSupersetOf({"pynq", "tiny"}));
}

TEST(Selftest, OtherSeedsAndFilterPass) {
  driver::FsimDevice dev(hw::loadConfig("tiny"));
  for (uint64_t seed : {2u, 3u, 99u}) {
    SelftestOptions opts;
    opts.seed = seed;
    for (const CaseResult& r : runSelftests(dev, opts))
      EXPECT_TRUE(r.passed) << "seed " << seed << " " << r.name << ": " << r.detail;
  }
  SelftestOptions only;
  only.filter = "alu-ADD";
  std::vector<CaseResult> results = runSelftests(dev, only);
  ASSERT_EQ(results.size(), 2u);
  for (const CaseResult& r : results) {
    EXPECT_THAT(r.name, HasSubstr("alu-ADD"));
    EXPECT_TRUE(r.passed) << r.detail;
  }
  only.filter = "no-such-case";
  EXPECT_TRUE(runSelftests(dev, only).empty());
}

// Negative control: a device whose read() flips one bit of every result. Every
// case reads its output back, so every case must fail and say what differed.
class CorruptingDevice : public driver::FsimDevice {
 public:
  using FsimDevice::FsimDevice;
  void read(const driver::Buffer& buffer, uint64_t offset, void* data, uint64_t bytes) override {
    FsimDevice::read(buffer, offset, data, bytes);
    if (bytes > 0) static_cast<uint8_t*>(data)[bytes / 2] ^= 0x01;
  }
};

TEST(Selftest, FailsOnADeviceThatCorruptsReads) {
  for (const char* config : {"tiny", "pynq"}) {
    CorruptingDevice dev(hw::loadConfig(config));
    std::vector<CaseResult> results = runSelftests(dev, SelftestOptions{});
    ASSERT_EQ(results.size(), selftestCaseNames(dev.config()).size());
    for (const CaseResult& r : results) {
      EXPECT_FALSE(r.passed) << config << " " << r.name << " passed on a corrupting device";
      EXPECT_THAT(r.detail, HasSubstr("differ")) << r.name;
    }
  }
}

// Negative control: a device on which every run fails reports each case as
// failed with the run's message.
class FailingDevice : public driver::FsimDevice {
 public:
  using FsimDevice::FsimDevice;
  void launch(uint64_t insn_addr, uint32_t count) override { FsimDevice::launch(insn_addr, count + 1); }
};

TEST(Selftest, ReportsRunErrors) {
  FailingDevice dev(hw::loadConfig("tiny"));
  std::vector<CaseResult> results = runSelftests(dev, SelftestOptions{});
  ASSERT_FALSE(results.empty());
  for (const CaseResult& r : results) {
    EXPECT_FALSE(r.passed) << r.name;
    EXPECT_THAT(r.detail, HasSubstr("instruction fetch")) << r.name;
  }
}

// Negative control: a device that times out every run.
class SlowDevice : public driver::FsimDevice {
 public:
  using FsimDevice::FsimDevice;
  driver::RunResult wait(std::chrono::milliseconds timeout) override {
    driver::RunResult r = FsimDevice::wait(timeout);
    r.status = driver::RunResult::Status::Timeout;
    r.message = "timed out (simulated)";
    return r;
  }
};

TEST(Selftest, ReportsTimeouts) {
  SlowDevice dev(hw::loadConfig("tiny"));
  SelftestOptions opts;
  opts.filter = "alu-MIN";
  std::vector<CaseResult> results = runSelftests(dev, opts);
  ASSERT_EQ(results.size(), 2u);
  for (const CaseResult& r : results) {
    EXPECT_FALSE(r.passed);
    EXPECT_THAT(r.detail, HasSubstr("timed out"));
  }
}

}  // namespace
}  // namespace vdla::selftest
