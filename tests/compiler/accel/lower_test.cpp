// Whole networks through the accelerator back end: every offloaded layer's
// output is bit-exact with the integer reference executor (the golden model
// of the quantised graph), on fsim and on the cycle-accurate simulator, both
// when every layer's output is brought back for the check and when chains of
// offloaded layers stay in device memory; artifacts survive serialisation
// and refuse a device of another config.
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
  // These tests are about the accelerator's programs; the CPU steps keep
  // their reference kernels (the CPU fallback: tests/compiler/llvm).
  o.llvm_cpu_fallback = false;
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
    if (n.qualifiedOp() == "vdla.QConv" || n.qualifiedOp() == "MaxPool") golden[n.name()] = outs[0];
  };
  const std::vector<rt::Tensor> want = runReference(*c.graph, {x}, ropts);

  size_t compared = 0;
  rt::ExecutorOptions eopts;
  eopts.device = dev.get();
  eopts.device_outputs_to_host = true;  // every layer's output to the host, for the per-layer check
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

  // As deployed: outputs that only offloaded layers read stay on the device.
  auto dev2 = driver::createDevice(backend, cfg);
  rt::ExecutorOptions deployed;
  deployed.device = dev2.get();
  rt::Executor ex2(c.artifact, deployed);
  const std::vector<rt::Tensor> got2 = ex2.run({x});
  ASSERT_EQ(got2.size(), want.size());
  for (size_t i = 0; i < got2.size(); ++i)
    EXPECT_EQ(0, std::memcmp(got2[i].raw(), want[i].raw(), got2[i].byteSize()))
        << "graph output " << i << " with activations left on the device (" << backend << "/" << config << ")";
}

int64_t intAttr(const rt::ArtifactStep& step, const char* name) { return step.attrs.getInt(name, -1); }

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

// ResNet-18 on pynq (block_in = block_out): every offloaded layer (the
// convolutions and the max pooling) whose input an offloaded layer wrote reads
// it in device memory; only the outputs the CPU steps read (the last block's,
// before average pooling; the classifier's) come back, and only the inputs
// that come from CPU steps go out.
TEST(AcceleratorLowering, ResNet18ActivationsStayOnTheDevice) {
  const Compiled c = compileZoo("resnet18", 64, "pynq");
  std::vector<std::string> downloaded, uploaded_x;
  size_t offloaded = 0;
  for (const rt::ArtifactStep& step : c.artifact.steps) {
    if (step.kernel != "vdla.conv") continue;
    ++offloaded;
    if (intAttr(step, "y_to_host") == 1) downloaded.push_back(step.name);
    if (intAttr(step, "x_resident") == 0) uploaded_x.push_back(step.name);
    if (intAttr(step, "has_residual") == 1) {
      EXPECT_EQ(intAttr(step, "r_resident"), 1) << step.name;
    }
  }
  EXPECT_EQ(offloaded, 22u);  // 21 convolutions and the max pooling
  EXPECT_EQ(downloaded, (std::vector<std::string>{"layer4.1.conv2.qconv", "fc.qconv"}));
  EXPECT_EQ(uploaded_x, (std::vector<std::string>{"conv1.qconv", "fc.qconv"}));

  // The bytes the host moves per inference, from the profile, against the
  // same run with every layer brought back.
  const hw::HwConfig cfg = hw::loadConfig("pynq");
  auto bytesMoved = [&](bool all_to_host, std::vector<rt::Tensor>* out) {
    auto dev = driver::createDevice("fsim", cfg);
    rt::ExecutorOptions o;
    o.device = dev.get();
    o.profile = true;
    o.device_outputs_to_host = all_to_host;
    rt::Executor ex(c.artifact, o);
    *out = ex.run({input(*c.graph, 3)});
    uint64_t down = 0;
    for (const rt::StepProfile& p : ex.profile()) down += p.host_downloaded_bytes;
    return down;
  };
  std::vector<rt::Tensor> kept, all;
  const uint64_t down_kept = bytesMoved(false, &kept), down_all = bytesMoved(true, &all);
  EXPECT_LT(down_kept * 2, down_all) << down_kept << " bytes downloaded, against " << down_all << " for every layer";
  EXPECT_EQ(0, std::memcmp(kept[0].raw(), all[0].raw(), kept[0].byteSize()));
}

// A config whose input and output blocks differ (tiny: 4 in, 8 out) cannot
// read one layer's output as the next one's input: every activation goes
// through the host, and the results are the same.
TEST(AcceleratorLowering, DifferentBlocksKeepActivationsOnTheHost) {
  const Compiled c = compileZoo("cnn", 32, "tiny");
  for (const rt::ArtifactStep& step : c.artifact.steps) {
    if (step.kernel != "vdla.conv") continue;
    EXPECT_EQ(intAttr(step, "x_resident"), 0) << step.name;
    EXPECT_EQ(intAttr(step, "y_to_host"), 1) << step.name;
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
