#include "vdla/explore/design_point.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "vdla/compiler/compile.h"
#include "vdla/frontend/onnx_importer.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/explore/network_workload.h"
#include "vdla/hw/board_host.h"

namespace vdla::explore {
namespace {

NetworkWorkload resnet18Small() {
  zoo::ZooOptions z;
  z.image_size = 64;  // same layers as at 224, smaller planes: quick
  auto graph = zoo::buildModel("resnet18", z);
  CompileOptions o;
  return prepareWorkload("resnet18", std::move(graph), o);
}

// The compiler's own estimate of a graph's accelerator cycles for target
// vdla with `o` (each offloaded layer's, less what its program chain
// overlaps), from an independent path through compileGraph.
double compiledCycles(ir::Graph& graph, CompileOptions o, CompileReport* report = nullptr) {
  o.target = "vdla";
  o.llvm_cpu_fallback = false;
  CompileReport local;
  CompileReport& r = report ? *report : local;
  compileGraph(graph, o, &r);
  double cycles = 0;
  for (const accel::LayerDecision& d : r.layers)
    if (d.offloaded) cycles += d.estimate.cycles - d.chain_overlap;
  return cycles;
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
      o.hw_config = name;
      o.accel.latency_hiding = lh;
      CompileReport report;
      const double cycles = compiledCycles(*graph, o, &report);
      int64_t macs = 0;
      int offloaded = 0;
      for (const accel::LayerDecision& d : report.layers)
        if (d.offloaded) {
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

// The same for the int8 MobileNetV2 QDQ model, whose ten quantised additions
// the compiler fuses into their convolutions (eight on zcu104, two
// elsewhere), and whose sixteen expansions into their depthwise layers
// (configs with STORE INP), where the cost model says so: the explorer
// decides each point's fusions the same way.
TEST(DesignPointTest, FusedAdditionsAgreeWithTheCompiler) {
  const std::string model = std::string(VDLA_SHARED_DATA_DIR) + "/models/mobilenetv2-imagenet-int8-qdq.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "shared data not present: " << model;
  for (const char* name : {"zcu104", "pynq", "ultra96"}) {
    SCOPED_TRACE(name);
    const hw::HwConfig cfg = hw::loadConfig(name);
    CompileOptions o;
    o.hw_config = name;
    const NetworkWorkload w = prepareWorkload("mobilenetv2", frontend::importOnnxFile(model), o);
    EXPECT_EQ(w.adds.size(), 10u);
    EXPECT_EQ(w.fusible.size(), 10u);  // every addition follows a projection only it reads
    const PointResult r = evaluateDesignPoint({cfg, true}, {w}, ResourceModel::builtin(), fpgaPart(cfg.part));

    auto graph = frontend::importOnnxFile(model);
    const double cycles = compiledCycles(*graph, o);
    int fused = 0, expansions = 0;
    for (const ir::Node* n : graph->nodes()) {
      fused += n->attrs().getInt("post_add", 0) != 0;
      expansions += n->qualifiedOp() == "vdla.QConv" && n->input(7) != nullptr;
    }
    EXPECT_EQ(fused, std::string(name) == "zcu104" ? 8 : 2);  // elsewhere the 7x7 ones
    EXPECT_EQ(w.expandable.size(), 16u);
    if (cfg.inp_writeback)
      EXPECT_GE(expansions, 10);
    else
      EXPECT_EQ(expansions, 0);
    ASSERT_EQ(r.networks.size(), 1u);
    EXPECT_NEAR(r.networks[0].cycles, cycles, 1e-9 * cycles);
  }
}

// With the additions on the CPU the tensors around them go through the host:
// the compiler chains only the layers between them, and the explorer counts
// the overlap of the same pairs.
TEST(DesignPointTest, ChainsAgreeWithTheCompilerWhenAdditionsRunOnTheCpu) {
  const std::string model = std::string(VDLA_SHARED_DATA_DIR) + "/models/mobilenetv2-imagenet-int8-qdq.onnx";
  if (!std::filesystem::exists(model)) GTEST_SKIP() << "shared data not present: " << model;
  const hw::HwConfig cfg = hw::loadConfig("zcu104");
  CompileOptions o;
  o.hw_config = "zcu104";
  o.accel.offload_adds = false;
  const NetworkWorkload w = prepareWorkload("mobilenetv2", frontend::importOnnxFile(model), o);
  EXPECT_TRUE(w.adds.empty());
  const PointResult r = evaluateDesignPoint({cfg, true}, {w}, ResourceModel::builtin(), fpgaPart(cfg.part));

  auto graph = frontend::importOnnxFile(model);
  CompileReport report;
  const double cycles = compiledCycles(*graph, o, &report);
  double overlap = 0;
  for (const accel::LayerDecision& d : report.layers) overlap += d.chain_overlap;
  EXPECT_GT(overlap, 0);
  ASSERT_EQ(r.networks.size(), 1u);
  EXPECT_NEAR(r.networks[0].cycles, cycles, 1e-9 * cycles);
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

// The host's share: on ultra96 (block_in 32, block_out 16, the output
// interleave bridging them) only the stem's input transform is left; the same
// array with the blocks the other way round (1x16x32: no interleave) sends
// every layer's output through the host, about a hundred times as much, and
// the accelerator's latency does not include it. A board without a host on
// record has none.
TEST(DesignPointTest, HostWorkOfLayoutsThatDoNotChain) {
  const NetworkWorkload w = resnet18Small();
  const hw::HwConfig u96 = hw::loadConfig("ultra96");
  const FpgaPart& part = fpgaPart(u96.part);
  const PointResult chained = evaluateDesignPoint({u96, true}, {w}, ResourceModel::builtin(), part);
  hw::HwConfig swapped = u96;
  std::swap(swapped.block_in, swapped.block_out);
  const PointResult handed = evaluateDesignPoint({swapped, true}, {w}, ResourceModel::builtin(), part);
  EXPECT_GT(chained.host_ms, 0);  // the stem's space-to-depth or im2col
  EXPECT_DOUBLE_EQ(chained.host_ms, chained.networks[0].host_ms);
  EXPECT_GT(handed.host_ms, 20 * chained.host_ms);
  // One layer alone: its output's bytes at the board's rates.
  const accel::ConvLayer& last = w.layers.at(w.layers.size() - 2);
  const accel::LayerForm form = accel::chooseLayerForm(last, swapped, true, true);
  ASSERT_TRUE(form.layer.host.identity());
  const hw::BoardHost host = *hw::boardHost(swapped);
  const double bytes = double(last.o * last.oh * last.ow);  // 16 or 32 channels per entry: no padding here
  EXPECT_NEAR(hostHandoffMs(form, swapped),
              1e3 * host.seconds(bytes * (host.unpack_per_byte + host.pack_per_byte + host.upload_per_byte)), 1e-9);
  EXPECT_EQ(hostHandoffMs(accel::chooseLayerForm(last, u96, true, true), u96), 0);

  hw::HwConfig no_board = u96;
  no_board.board = "no-such-board";
  EXPECT_EQ(evaluateDesignPoint({no_board, true}, {w}, ResourceModel::builtin(), part).host_ms, 0);
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
