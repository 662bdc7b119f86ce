// Tests of vdla/hw/dram_timing.h: a board's memory system in nanoseconds and
// bytes per second becomes cycles at the config's clock.
#include "vdla/hw/dram_timing.h"

#include <gtest/gtest.h>

namespace vdla::hw {
namespace {

HwConfig withClock(const std::string& name, double mhz) {
  HwConfig c = loadConfig(name);
  c.clock_mhz = mhz;
  return c;
}

TEST(DramTimingTest, LatenciesAreNanosecondsAtTheConfigsClock) {
  // Zynq-7000: 320 / 160 ns.
  const DramTiming at100 = defaultDramTiming(withClock("pynq", 100));
  EXPECT_EQ(at100.read_latency, 32u);
  EXPECT_EQ(at100.write_latency, 16u);
  const DramTiming at150 = defaultDramTiming(withClock("pynq", 150));
  EXPECT_EQ(at150.read_latency, 48u);
  EXPECT_EQ(at150.write_latency, 24u);
  // Zynq UltraScale+: 160 / 80 ns, rounded to the nearest cycle.
  EXPECT_EQ(defaultDramTiming(withClock("zcu104", 300)).read_latency, 48u);
  EXPECT_EQ(defaultDramTiming(withClock("ultra96", 287)).read_latency, 46u);
  EXPECT_EQ(defaultDramTiming(withClock("ultra96", 287)).write_latency, 23u);
  EXPECT_EQ(defaultDramTiming(withClock("zcu104", 1)).write_latency, 1u);  // never zero
}

TEST(DramTimingTest, ThePortMovesOneBusWidthPerCyclePerDirection) {
  EXPECT_EQ(defaultDramTiming(loadConfig("pynq")).bytes_per_cycle, 8.0);
  EXPECT_EQ(defaultDramTiming(loadConfig("zcu104")).bytes_per_cycle, 16.0);
}

TEST(DramTimingTest, PynqsDdrIsSharedByReadsAndWrites) {
  // 16-bit DDR3 at 1050 MT/s, 80% of it sustained: 1.68 GB/s.
  EXPECT_NEAR(defaultDramTiming(withClock("pynq", 150)).shared_bytes_per_cycle, 11.2, 1e-9);
  // At 100 MHz both directions together (16 B/cycle) stay under it.
  EXPECT_NEAR(defaultDramTiming(withClock("pynq", 100)).shared_bytes_per_cycle, 16.8, 1e-9);
  // Not modelled on the UltraScale+ boards.
  EXPECT_EQ(defaultDramTiming(loadConfig("zcu104")).shared_bytes_per_cycle, 0.0);
}

}  // namespace
}  // namespace vdla::hw
