#include "vdla/explore/sweep.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/explore/design_space.h"
#include "vdla/explore/result_json.h"
#include "vdla/hw/error.h"

namespace vdla::explore {
namespace {

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    zoo::ZooOptions z;
    z.image_size = 32;
    auto graph = zoo::buildModel("resnet18", z);
    networks_.push_back(prepareWorkload("resnet18", std::move(graph), CompileOptions()));
    DesignSpace s;
    s.base = "pynq";
    s.block_in = {8, 16};
    s.block_out = {16, 32};
    s.weight_kib = {64, 128};
    s.latency_hiding = {true, false};
    points_ = enumerateDesignSpace(s, nullptr);
    ASSERT_GE(points_.size(), 12u);
    dir_ = std::filesystem::path(::testing::TempDir()) /
           ("vdla_sweep_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }

  std::vector<PointResult> sweep(const std::vector<DesignPoint>& points, SweepOptions o, SweepStats* stats = nullptr) {
    const FpgaPart& part = fpgaPart(points.at(0).config.part);
    return runSweep(points, networks_, ResourceModel::builtin(), part, o, stats);
  }

  static std::string dump(const std::vector<PointResult>& rs) {
    std::string s;
    for (const auto& r : rs) s += pointResultToJson(r).dump() + "\n";
    return s;
  }

  std::vector<NetworkWorkload> networks_;
  std::vector<DesignPoint> points_;
  std::filesystem::path dir_;
};

TEST_F(SweepTest, ResultsDoNotDependOnTheThreadCount) {
  SweepOptions one, four;
  one.threads = 1;
  four.threads = 4;
  EXPECT_EQ(dump(sweep(points_, one)), dump(sweep(points_, four)));
}

TEST_F(SweepTest, ResumesFromTheCache) {
  SweepOptions plain;
  const std::string expected = dump(sweep(points_, plain));

  SweepOptions cached;
  cached.cache_path = (dir_ / "cache.jsonl").string();
  // An interrupted sweep: half the points done.
  std::vector<DesignPoint> half(points_.begin(), points_.begin() + long(points_.size() / 2));
  SweepStats first;
  sweep(half, cached, &first);
  EXPECT_EQ(first.cached, 0u);
  EXPECT_EQ(first.evaluated, half.size());
  // The whole sweep evaluates only the rest, with the same results.
  size_t last_done = 0, calls = 0;
  cached.progress = [&](size_t done, size_t total, size_t) {
    EXPECT_EQ(total, points_.size());
    EXPECT_GT(done, last_done);
    last_done = done;
    ++calls;
  };
  SweepStats second;
  EXPECT_EQ(dump(sweep(points_, cached, &second)), expected);
  EXPECT_EQ(second.cached, half.size());
  EXPECT_EQ(second.evaluated, points_.size() - half.size());
  EXPECT_EQ(last_done, points_.size());
  EXPECT_EQ(calls, 1 + second.evaluated);
  // Again: nothing left to evaluate.
  SweepStats third;
  cached.progress = nullptr;
  EXPECT_EQ(dump(sweep(points_, cached, &third)), expected);
  EXPECT_EQ(third.evaluated, 0u);
}

TEST_F(SweepTest, ToleratesACutLastLineButNotACorruptCache) {
  const std::string path = (dir_ / "cache.jsonl").string();
  SweepOptions cached;
  cached.cache_path = path;
  std::vector<DesignPoint> two(points_.begin(), points_.begin() + 2);
  sweep(two, cached);
  {
    std::ofstream out(path, std::ios::app);
    out << "{\"key\": \"abc\", \"res";  // a write cut short by an interrupt
  }
  SweepStats stats;
  sweep(two, cached, &stats);
  EXPECT_EQ(stats.cached, 2u);
  // New entries after the cut line start on their own line and read back.
  std::vector<DesignPoint> three(points_.begin(), points_.begin() + 3);
  sweep(three, cached);
  SweepStats again;
  sweep(three, cached, &again);
  EXPECT_EQ(again.cached, 3u);

  std::ofstream(path) << "not json\n"
                      << "{}\n";
  try {
    sweep(two, cached);
    FAIL() << "a corrupt cache must be an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cache.jsonl:1: unreadable sweep cache entry"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla::explore
