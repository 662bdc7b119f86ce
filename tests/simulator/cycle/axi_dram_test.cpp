// The cycle simulator's DRAM model (simulator/cycle/src/axi_dram.*) on its
// own: per-direction rates and the budget that reads and writes share.
#include "axi_dram.h"

#include <gtest/gtest.h>

#include <vector>

namespace vdla::sim {
namespace {

struct Moved {
  uint64_t read_beats = 0, write_beats = 0;
};

// Streams 32-beat read and/or write bursts at the model as fast as it takes
// them for `cycles` cycles and counts the beats that moved.
Moved stream(const DramTiming& timing, bool reads, bool writes, uint64_t cycles) {
  constexpr uint32_t kBus = 8, kBeats = 32;
  Dram dram;
  const uint64_t buf = dram.allocate(1 << 20);
  AxiDram axi(dram, kBus, timing);
  std::vector<uint8_t> wdata(kBus, 0x5a);
  AxiDram::Request req;
  AxiDram::Response resp;
  Moved m;
  uint32_t w_beat = 0;
  for (uint64_t c = 0; c < cycles; ++c) {
    req.arvalid = reads;
    req.araddr = static_cast<uint32_t>(buf);
    req.arlen = kBeats - 1;
    req.arsize = 3;
    req.awvalid = writes;
    req.awaddr = static_cast<uint32_t>(buf + 4096);
    req.awlen = kBeats - 1;
    req.wvalid = writes;
    req.wlast = w_beat == kBeats - 1;
    req.wdata = wdata.data();
    axi.step(c, req, resp);
    if (resp.rvalid) ++m.read_beats;
    if (req.wvalid && resp.wready) {
      ++m.write_beats;
      w_beat = (w_beat + 1) % kBeats;
    }
  }
  EXPECT_EQ(axi.firstError(), "");
  return m;
}

TEST(AxiDramTest, EachDirectionMovesABeatPerCycleWithoutASharedBudget) {
  DramTiming t;  // 8 bytes per cycle per direction, no shared limit
  const Moved m = stream(t, true, true, 4000);
  // Latency and the response queue cost a little at the start only.
  EXPECT_GT(m.read_beats, 3900u);
  EXPECT_GT(m.write_beats, 3900u);
}

TEST(AxiDramTest, ReadsAndWritesTogetherStayWithinTheSharedBudget) {
  DramTiming t;
  t.read_latency = 48;
  t.write_latency = 24;
  t.shared_bytes_per_cycle = 11.2;  // pynq's DDR at 150 MHz
  const uint64_t cycles = 10000;
  const Moved both = stream(t, true, true, cycles);
  const double bytes = 8.0 * double(both.read_beats + both.write_beats);
  EXPECT_LE(bytes, 11.2 * cycles + 27.2);   // the budget holds two beats and a cycle
  EXPECT_GT(bytes, 11.0 * cycles);          // and is used when both want it
  EXPECT_GT(both.write_beats, cycles / 5);  // reads go first, writes still move
  // One direction alone is limited by the port, not by the DDR.
  EXPECT_GT(stream(t, true, false, cycles).read_beats, cycles - 100);
  EXPECT_GT(stream(t, false, true, cycles).write_beats, cycles - 100);
}

TEST(AxiDramTest, WritesDoNotStarveWhenTheBudgetIsBelowABeat) {
  DramTiming t;
  t.shared_bytes_per_cycle = 6;  // less than one 8-byte beat a cycle
  const uint64_t cycles = 10000;
  const Moved both = stream(t, true, true, cycles);
  const double bytes = 8.0 * double(both.read_beats + both.write_beats);
  EXPECT_LE(bytes, 6.0 * cycles + 22);
  EXPECT_GT(bytes, 5.9 * cycles);
  // Reads go first, but a write beat wins at least one contested cycle in
  // nine: about a ninth of the beats are writes.
  const uint64_t beats = both.read_beats + both.write_beats;
  EXPECT_GT(both.write_beats, beats / 12);
  EXPECT_GT(both.read_beats, 4 * both.write_beats);
}

}  // namespace
}  // namespace vdla::sim
