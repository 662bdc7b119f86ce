#include "vdla/explore/design_point.h"

#include <gtest/gtest.h>

#include "vdla/compiler/compile.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/explore/network_workload.h"

namespace vdla::explore {
namespace {

NetworkWorkload resnet18Small() {
  zoo::ZooOptions z;
  z.image_size = 64;  // same layers as at 224, smaller planes: quick
  auto graph = zoo::buildModel("resnet18", z);
  CompileOptions o;
  return prepareWorkload("resnet18", std::move(graph), o);
}

// The explorer's latency is what the compiler's own lowering decides: the
// same layer forms and tilings, summed (an independent path through
// compileGraph and lowerForAccelerator, which also generates the programs).
TEST(DesignPointTest, AgreesWithTheCompilersLayerDecisions) {
  const NetworkWorkload w = resnet18Small();
  ASSERT_EQ(w.layers.size(), 21u);  // ResNet-18's 20 convolutions and the classifier as a 1x1 one
  ASSERT_EQ(w.pools.size(), 1u);    // and the stem's max pooling
  for (const char* name : {"pynq", "zcu104"})
    for (bool lh : {true, false}) {
      SCOPED_TRACE(std::string(name) + (lh ? " with" : " without") + " latency hiding");
      const hw::HwConfig cfg = hw::loadConfig(name);
      const PointResult r = evaluateDesignPoint({cfg, lh}, {w}, ResourceModel::builtin(), fpgaPart(cfg.part));

      zoo::ZooOptions z;
      z.image_size = 64;
      auto graph = zoo::buildModel("resnet18", z);
      CompileOptions o;
      o.target = "vdla";
      o.hw_config = name;
      o.accel.latency_hiding = lh;
      o.llvm_cpu_fallback = false;
      CompileReport report;
      compileGraph(*graph, o, &report);
      double cycles = 0;
      int64_t macs = 0;
      int offloaded = 0;
      for (const accel::LayerDecision& d : report.layers)
        if (d.offloaded) {
          cycles += d.estimate.cycles;
          macs += d.macs;
          ++offloaded;
        }
      ASSERT_EQ(r.networks.size(), 1u);
      const NetworkResult& n = r.networks[0];
      EXPECT_EQ(n.layers_offloaded, offloaded);
      EXPECT_DOUBLE_EQ(n.cycles, cycles);
      EXPECT_DOUBLE_EQ(n.ideal_cycles, double(macs) / double(cfg.macsPerCycle()));
      EXPECT_DOUBLE_EQ(n.latency_ms, cycles / (cfg.clock_mhz * 1e3));
      EXPECT_TRUE(r.complete);
    }
}

TEST(DesignPointTest, LatencyHidingIsFasterAndBiggerArraysFaster) {
  const NetworkWorkload w = resnet18Small();
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  const FpgaPart& part = fpgaPart(pynq.part);
  const PointResult on = evaluateDesignPoint({pynq, true}, {w}, ResourceModel::builtin(), part);
  const PointResult off = evaluateDesignPoint({pynq, false}, {w}, ResourceModel::builtin(), part);
  EXPECT_LT(on.latency_ms, off.latency_ms);
  EXPECT_GT(on.networks[0].mac_utilisation, 0.25);  // 64x64 input: small planes, short tiles
  EXPECT_LE(on.networks[0].mac_utilisation, 1.0);
  // Twice the array (1x32x16) at 287 MHz against 150 MHz on the bigger
  // UltraScale+ part (ultra96): more than twice as fast.
  const hw::HwConfig u96 = hw::loadConfig("ultra96");
  const PointResult fast = evaluateDesignPoint({u96, true}, {w}, ResourceModel::builtin(), fpgaPart(u96.part));
  EXPECT_LT(fast.latency_ms, on.latency_ms / 2);
  EXPECT_EQ(fast.fits(), fast.why_not_fits.empty());
  EXPECT_EQ(fast.resources.dsp, ResourceModel::builtin().estimate(u96, "xcup").dsp);
  // Four times the array (zcu104's 1x32x32) is faster per cycle.
  const hw::HwConfig z = hw::loadConfig("zcu104");
  const PointResult big = evaluateDesignPoint({z, true}, {w}, ResourceModel::builtin(), fpgaPart(z.part));
  EXPECT_LT(big.networks[0].cycles, on.networks[0].cycles / 2);
}

TEST(DesignPointTest, LayersThatFitNoBufferMakeThePointIncomplete) {
  const NetworkWorkload w = resnet18Small();
  hw::HwConfig cfg = hw::loadConfig("tiny");
  const PointResult r = evaluateDesignPoint({cfg, true}, {w}, ResourceModel::builtin(), fpgaPart(cfg.part));
  EXPECT_FALSE(r.complete);
  EXPECT_LT(r.networks[0].layers_offloaded, r.networks[0].layers_total);
  EXPECT_NE(r.networks[0].why_incomplete.find("no tiling fits the on-chip buffers of config 'tiny'"), std::string::npos)
      << r.networks[0].why_incomplete;
}

TEST(DesignPointTest, KeyChangesWithEveryInput) {
  const NetworkWorkload w = resnet18Small();
  const hw::HwConfig pynq = hw::loadConfig("pynq");
  const ResourceModel& m = ResourceModel::builtin();
  const std::string k = designPointKey({pynq, true}, {w}, m);
  EXPECT_NE(k, designPointKey({pynq, false}, {w}, m));
  EXPECT_NE(k, designPointKey({hw::loadConfig("ultra96"), true}, {w}, m));
  EXPECT_NE(k, designPointKey({pynq, true}, {w, w}, m));
  EXPECT_EQ(k, designPointKey({pynq, true}, {w}, m));
}

}  // namespace
}  // namespace vdla::explore
