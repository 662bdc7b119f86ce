#include "vdla/explore/pareto.h"

#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <string>

namespace vdla::explore {
namespace {

PointResult point(double dsp, double ms, bool fits = true, bool complete = true) {
  PointResult r;
  r.resources.dsp = dsp;
  r.latency_ms = ms;
  r.why_not_fits = fits ? "" : "DSP over";
  r.complete = complete;
  return r;
}

// The plain definition: a fitting, complete point no other such point
// dominates (no more DSP and no more latency, one of them strictly less).
bool onFrontByDefinition(const std::vector<PointResult>& rs, size_t i) {
  if (!rs[i].fits() || !rs[i].complete) return false;
  for (size_t j = 0; j < rs.size(); ++j) {
    if (j == i || !rs[j].fits() || !rs[j].complete) continue;
    const bool no_worse = rs[j].resources.dsp <= rs[i].resources.dsp && rs[j].latency_ms <= rs[i].latency_ms;
    const bool better = rs[j].resources.dsp < rs[i].resources.dsp || rs[j].latency_ms < rs[i].latency_ms;
    if (no_worse && better) return false;
  }
  return true;
}

TEST(ParetoTest, SmallExample) {
  std::vector<PointResult> rs = {point(100, 10),       point(200, 5), point(150, 12),
                                 point(300, 4, false), point(250, 5), point(50, 1, true, false)};
  const std::vector<size_t> front = markParetoFront(rs);
  EXPECT_EQ(front, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(rs[0].on_front && rs[1].on_front);
  EXPECT_FALSE(rs[2].on_front || rs[3].on_front || rs[4].on_front || rs[5].on_front);
}

TEST(ParetoTest, MatchesTheDefinitionOnRandomSets) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<PointResult> rs;
    const int n = 1 + int(rng() % 40);
    for (int i = 0; i < n; ++i)  // coarse values so that ties happen
      rs.push_back(point(double(rng() % 12) * 50, double(1 + rng() % 10), rng() % 5 != 0, rng() % 7 != 0));
    markParetoFront(rs);
    for (size_t i = 0; i < rs.size(); ++i)
      ASSERT_EQ(rs[i].on_front, onFrontByDefinition(rs, i)) << "trial " << trial << " point " << i;
  }
}

// End to end the board CPU's share counts: a point fast on the accelerator
// whose layouts leave the host a lot of work drops off the front, and the
// objective's name round-trips; a wrong one is refused by name.
TEST(ParetoTest, EndToEndCountsTheHostsShare) {
  std::vector<PointResult> rs = {point(100, 10), point(200, 5), point(300, 4)};
  rs[1].host_ms = 20;  // 1x16x32-like: every activation through the host
  EXPECT_EQ(markParetoFront(rs), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(markParetoFront(rs, Objective::EndToEnd), (std::vector<size_t>{0, 2}));
  EXPECT_FALSE(rs[1].on_front);
  EXPECT_DOUBLE_EQ(objectiveMs(rs[1], Objective::EndToEnd), 25);
  EXPECT_DOUBLE_EQ(objectiveMs(rs[1], Objective::Accelerator), 5);
  for (Objective o : {Objective::Accelerator, Objective::EndToEnd}) EXPECT_EQ(parseObjective(objectiveName(o)), o);
  try {
    parseObjective("fastest");
    FAIL() << "an unknown objective was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'fastest'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla::explore
