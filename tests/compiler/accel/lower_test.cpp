// Whole networks through the accelerator back end: every offloaded layer's
// output is bit-exact with the integer reference executor (the golden model
// of the quantised graph), on fsim and on the cycle-accurate simulator;
// artifacts survive serialisation and refuse a device of another config.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "vdla/compiler/compile.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/driver/device.h"
#include "vdla/runtime/executor.h"

namespace vdla::accel {
namespace {

struct Compiled {
  std::unique_ptr<ir::Graph> graph;  // quantised in place by the compile
  rt::Artifact artifact;
  CompileReport report;
};

Compiled compileZoo(const std::string& model, int64_t image_size, const std::string& config, bool lh = true) {
  Compiled c;
  zoo::ZooOptions zo;
  zo.image_size = image_size;
  c.graph = zoo::buildModel(model, zo);
  CompileOptions o;
  o.target = "vdla";
  o.hw_config = config;
  o.accel.latency_hiding = lh;
  c.artifact = compileGraph(*c.graph, o, &c.report);
  return c;
}

rt::Tensor input(const ir::Graph& g, uint32_t seed) {
  rt::Tensor t(g.inputs()[0]->type());
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(s >> 8) / float(1 << 24) * 4.0f - 2.0f;
  }
  return t;
}

// Runs the artifact on the device and the quantised graph on the reference
// executor; compares every offloaded step's output and the graph outputs.
void expectBitExact(const Compiled& c, const std::string& backend, const std::string& config) {
  const hw::HwConfig cfg = hw::loadConfig(config);
  auto dev = driver::createDevice(backend, cfg);
  const rt::Tensor x = input(*c.graph, 5);

  std::map<std::string, rt::Tensor> golden;
  ReferenceRunOptions ropts;
  ropts.on_node = [&](const ir::Node& n, const std::vector<rt::Tensor>& outs) {
    if (n.qualifiedOp() == "vdla.QConv") golden[n.name()] = outs[0];
  };
  const std::vector<rt::Tensor> want = runReference(*c.graph, {x}, ropts);

  size_t compared = 0;
  rt::ExecutorOptions eopts;
  eopts.device = dev.get();
  eopts.on_step = [&](size_t, const rt::ArtifactStep& step, const std::vector<rt::Tensor*>& outs) {
    if (step.kernel != "vdla.conv") return;
    auto it = golden.find(step.name);
    ASSERT_NE(it, golden.end()) << step.name;
    const rt::Tensor& g = it->second;
    ASSERT_EQ(g.byteSize(), outs[0]->byteSize()) << step.name;
    for (int64_t i = 0; i < g.numElements(); ++i)
      ASSERT_EQ(g.data<int8_t>()[i], outs[0]->data<int8_t>()[i])
          << step.name << " element " << i << " of " << g.type().toString() << " on " << backend << "/" << config;
    ++compared;
  };
  rt::Executor ex(c.artifact, eopts);
  const std::vector<rt::Tensor> got = ex.run({x});
  size_t offloaded = 0;
  for (const LayerDecision& d : c.report.layers) offloaded += d.offloaded;
  EXPECT_EQ(compared, offloaded) << "every offloaded layer compared";
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].byteSize(), want[i].byteSize());
    EXPECT_EQ(0, std::memcmp(got[i].raw(), want[i].raw(), got[i].byteSize())) << "graph output " << i;
  }
}

TEST(AcceleratorLowering, ResNet18BitExactOnFsim) {
  const Compiled c = compileZoo("resnet18", 64, "pynq");
  for (const LayerDecision& d : c.report.layers) {
    if (d.op == "vdla.QConv") {
      EXPECT_TRUE(d.offloaded) << d.name << ": " << d.reason;
    }
  }
  expectBitExact(c, "fsim", "pynq");
}

// The same network, reduced input, on the cycle-accurate RTL and the HLS C
// simulation (residuals in the accumulators, strided and 1x1 layers, the
// im2col stem).
TEST(AcceleratorLowering, ResNet18BitExactOnEveryDevice) {
  const Compiled c = compileZoo("resnet18", 64, "pynq");
  for (const std::string& backend : driver::deviceBackends()) {
    if (backend == "fsim") continue;  // above
    expectBitExact(c, backend, "pynq");
    if (HasFatalFailure()) return;
  }
}

TEST(AcceleratorLowering, ResNet18WithoutLatencyHidingBitExactOnFsim) {
  expectBitExact(compileZoo("resnet18", 64, "pynq", false), "fsim", "pynq");
}

// ResNet-50 (1x1 bottlenecks, 2048 channels) and MobileNetV2 (depthwise,
// ReLU6, linear bottlenecks with residuals) at a reduced input size.
TEST(AcceleratorLowering, ResNet50AndMobileNetV2BitExactOnFsim) {
  for (const char* model : {"resnet50", "mobilenetv2"}) {
    const Compiled c = compileZoo(model, 64, "pynq");
    for (const LayerDecision& d : c.report.layers) {
      if (d.op == "vdla.QConv") {
        EXPECT_TRUE(d.offloaded) << model << " " << d.name << ": " << d.reason;
      }
    }
    expectBitExact(c, "fsim", "pynq");
    if (HasFatalFailure()) return;
  }
}

TEST(AcceleratorLowering, SmallCnnBitExactOnEveryDevice) {
  for (const std::string config : {"pynq", "tiny"})
    for (const std::string& backend : driver::deviceBackends()) {
      const Compiled c = compileZoo("cnn", 32, config);
      // pynq runs every layer; tiny's accumulator cannot hold the classifier's
      // 1000 channels of parameters, which then runs on the CPU.
      for (const LayerDecision& d : c.report.layers) {
        if (d.op == "vdla.QConv" && (config == "pynq" || d.name != "fc.qconv")) {
          EXPECT_TRUE(d.offloaded) << d.name << ": " << d.reason;
        }
      }
      expectBitExact(c, backend, config);
      if (HasFatalFailure()) return;
    }
}

TEST(AcceleratorLowering, ArtifactRoundTripAndConfigCheck) {
  const Compiled c = compileZoo("cnn", 32, "pynq");
  const rt::Artifact back = rt::deserializeArtifact(rt::serializeArtifact(c.artifact), "cnn.vdla");
  auto dev = driver::createDevice("fsim", hw::loadConfig("pynq"));
  rt::ExecutorOptions eopts;
  eopts.device = dev.get();
  const rt::Tensor x = input(*c.graph, 1);
  rt::Executor a(c.artifact, eopts), b(back, eopts);
  const rt::Tensor ya = a.run({x})[0], yb = b.run({x})[0];
  EXPECT_EQ(0, std::memcmp(ya.raw(), yb.raw(), ya.byteSize()));

  auto tiny = driver::createDevice("fsim", hw::loadConfig("tiny"));
  rt::ExecutorOptions wrong;
  wrong.device = tiny.get();
  try {
    rt::Executor e(c.artifact, wrong);
    FAIL() << "an artifact for pynq ran on a tiny device";
  } catch (const rt::ArtifactError& e) {
    EXPECT_NE(std::string(e.what()).find("refusing to run it"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla::accel
