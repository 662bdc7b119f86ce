// Whole networks through the accelerator back end: every offloaded layer's
// output is bit-exact with the integer reference executor (the golden model
// of the quantised graph), on fsim and on the cycle-accurate simulator, both
// when every layer's output is brought back for the check and when chains of
// offloaded layers stay in device memory; artifacts survive serialisation
// and refuse a device of another config.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <random>
#include <sstream>

#include "vdla/compiler/accel/lowering.h"
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

Compiled compileGraphFor(std::unique_ptr<ir::Graph> graph, const std::string& config,
                         const AccelOptions& accel = AccelOptions{}) {
  Compiled c;
  c.graph = std::move(graph);
  CompileOptions o;
  o.target = "vdla";
  o.hw_config = config;
  o.accel = accel;
  // These tests are about the accelerator's programs; the CPU steps keep
  // their reference kernels (the CPU fallback: tests/compiler/llvm).
  o.llvm_cpu_fallback = false;
  c.artifact = compileGraph(*c.graph, o, &c.report);
  return c;
}

Compiled compileZoo(const std::string& model, int64_t image_size, const std::string& config,
                    const AccelOptions& accel = AccelOptions{}) {
  zoo::ZooOptions zo;
  zo.image_size = image_size;
  return compileGraphFor(zoo::buildModel(model, zo), config, accel);
}

AccelOptions latencyHiding(bool on) {
  AccelOptions a;
  a.latency_hiding = on;
  return a;
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
    golden[n.name()] = outs[0];  // every node: the offloaded ones are convolutions, poolings and additions
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

// The offloaded layers planned on DWGEMM (depthwise_gemm.h).
size_t dwgemmLayers(const Compiled& c) {
  size_t n = 0;
  for (const LayerDecision& d : c.report.layers) n += d.offloaded && d.plan.dwgemm;
  return n;
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
  expectBitExact(compileZoo("resnet18", 64, "pynq", latencyHiding(false)), "fsim", "pynq");
}

// ResNet-50 (1x1 bottlenecks, 2048 channels) and MobileNetV2 (depthwise,
// ReLU6, linear bottlenecks with residuals) at a reduced input size. pynq
// has DWGEMM: MobileNetV2's 17 depthwise layers run on it, and the
// partition's printout says so.
TEST(AcceleratorLowering, ResNet50AndMobileNetV2BitExactOnFsim) {
  for (const std::string model : {"resnet50", "mobilenetv2"}) {
    const Compiled c = compileZoo(model, 64, "pynq");
    for (const LayerDecision& d : c.report.layers) {
      if (d.op == "vdla.QConv") {
        EXPECT_TRUE(d.offloaded) << model << " " << d.name << ": " << d.reason;
      }
    }
    EXPECT_EQ(dwgemmLayers(c), model == "mobilenetv2" ? 17u : 0u) << model;
    if (model == "mobilenetv2") {
      std::ostringstream printed;
      printPartition(printed, partitionForAccelerator(*c.graph, hw::loadConfig("pynq"), AccelOptions{}));
      EXPECT_NE(printed.str().find("direct on DWGEMM"), std::string::npos) << printed.str();
    }
    expectBitExact(c, "fsim", "pynq");
    if (HasFatalFailure()) return;
  }
}

TEST(AcceleratorLowering, SmallCnnBitExactOnEveryDevice) {
  for (const std::string config : {"pynq", "tiny"})
    for (const std::string& backend : driver::deviceBackends()) {
      const Compiled c = compileZoo("cnn", 32, config);
      EXPECT_EQ(dwgemmLayers(c), config == "pynq" ? 1u : 0u) << "the depthwise layer on DWGEMM";
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

// A random fp32 chain of convolutions (1x1 and 3x3, strides 1 and 2, ReLU or
// none), max poolings and residual adds, quantised by the compiler.
std::unique_ptr<ir::Graph> randomChain(std::mt19937& rng) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  auto g = std::make_unique<ir::Graph>();
  g->name = "random_chain";
  int64_t c = std::vector<int64_t>{3, 8, 16}[static_cast<size_t>(pick(0, 2))], h = pick(12, 24);
  ir::Value* x = g->addInput("x", rt::TensorType{rt::DType::F32, {1, c, h, h}, rt::Layout::RowMajor});
  std::vector<std::pair<ir::Value*, std::array<int64_t, 2>>> earlier;  // residual candidates: value, (channels, size)
  const int64_t layers = pick(3, 6);
  for (int64_t i = 0; i < layers; ++i) {
    const std::string name = "l" + std::to_string(i);
    const int64_t k = pick(0, 1) ? 3 : 1, s = (h >= 8 && pick(0, 3) == 0) ? 2 : 1;
    const int64_t o = std::vector<int64_t>{8, 16, 24, 32}[static_cast<size_t>(pick(0, 3))];
    rt::Tensor w(rt::DType::F32, {o, c, k, k}), b(rt::DType::F32, {o});
    std::normal_distribution<float> nd(0.0f, 1.0f / std::sqrt(float(c * k * k)));
    for (int64_t j = 0; j < w.numElements(); ++j) w.data<float>()[j] = nd(rng);
    for (int64_t j = 0; j < o; ++j) b.data<float>()[j] = nd(rng);
    rt::AttributeMap a;
    a.set("strides", std::vector<int64_t>{s, s});
    a.set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    ir::Value* y =
        g->addNode("Conv", {x, g->addConstant(name + ".w", w), g->addConstant(name + ".b", b)}, 1, a, name)->output(0);
    c = o;
    h = (h + 2 * (k / 2) - k) / s + 1;
    // A residual add of an earlier tensor of the same shape, then ReLU.
    for (auto& [v, shape] : earlier)
      if (shape[0] == c && shape[1] == h && pick(0, 1)) {
        y = g->addNode("Add", {y, v}, 1, {}, name + ".add")->output(0);
        break;
      }
    if (pick(0, 3) != 0) y = g->addNode("Relu", {y}, 1, {}, name + ".relu")->output(0);
    if (h >= 6 && pick(0, 3) == 0) {
      rt::AttributeMap pa;
      const bool padded = pick(0, 1);
      pa.set("kernel_shape", std::vector<int64_t>{padded ? 3 : 2, padded ? 3 : 2});
      pa.set("strides", std::vector<int64_t>{2, 2});
      if (padded) pa.set("pads", std::vector<int64_t>{1, 1, 1, 1});
      y = g->addNode("MaxPool", {y}, 1, pa, name + ".pool")->output(0);
      h = padded ? (h - 1) / 2 + 1 : h / 2;
    }
    earlier.push_back({y, {c, h}});
    x = y;
  }
  g->addOutput(x);
  return g;
}

// Random chains on pynq (block_in = block_out): the activations between
// offloaded layers stay in device memory, and every layer's output, and the
// network's, is bit-exact with the reference executor on every device.
TEST(AcceleratorLowering, RandomChainsStayOnTheDeviceBitExact) {
  std::mt19937 rng(2027);
  size_t resident = 0;
  for (int k = 0; k < 6; ++k) {
    SCOPED_TRACE("chain " + std::to_string(k));
    const Compiled c = compileGraphFor(randomChain(rng), "pynq");
    for (const rt::ArtifactStep& step : c.artifact.steps)
      if (step.kernel == "vdla.conv") resident += intAttr(step, "x_resident") == 1;
    for (const std::string& backend : driver::deviceBackends()) {
      expectBitExact(c, backend, "pynq");
      if (HasFatalFailure()) return;
    }
  }
  EXPECT_GE(resident, 10u) << "inputs read in device memory across the chains";
}

// ResNet-18 on pynq (block_in = block_out): every offloaded layer (the
// convolutions and the two poolings) whose input an offloaded layer wrote reads
// it in device memory, the classifier too (its Flatten and the Reshape back
// to 4-D cancel, stage fold-reshapes); only the classifier's output comes
// back, and only the network's quantised input goes out.
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
  EXPECT_EQ(offloaded, 23u);  // 21 convolutions, the max pooling and the global average pooling
  EXPECT_EQ(downloaded, (std::vector<std::string>{"fc.qconv"}));
  EXPECT_EQ(uploaded_x, (std::vector<std::string>{"conv1.qconv"}));

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

// Without im2col the stem takes its space-to-depth form (a 4x4 stride-1 layer
// over 12 channels instead of 7x7 stride 2 over 3): the host only
// rearranges the input, writing no more than the network's input, and the
// network stays bit-exact.
TEST(AcceleratorLowering, SpaceToDepthStemKeepsTheHostsWorkWithinTheInput) {
  AccelOptions no_im2col;
  no_im2col.allow_im2col = false;
  const Compiled c = compileZoo("resnet18", 64, "pynq", no_im2col);
  const LayerDecision& stem = c.report.layers.at(1);
  ASSERT_EQ(stem.name, "conv1.qconv");
  EXPECT_TRUE(stem.offloaded && stem.space_to_depth && !stem.im2col) << stem.reason;
  expectBitExact(c, "fsim", "pynq");

  auto dev = driver::createDevice("fsim", hw::loadConfig("pynq"));
  rt::ExecutorOptions eo;
  eo.device = dev.get();
  eo.profile = true;
  rt::Executor ex(c.artifact, eo);
  ex.run({input(*c.graph, 3)});
  uint64_t transformed = 0;
  for (const rt::StepProfile& p : ex.profile()) transformed += p.host_transformed_bytes;
  const uint64_t input_bytes = 3 * 64 * 64;  // the int8 input
  EXPECT_GT(transformed, 0u);
  EXPECT_LE(transformed, input_bytes * 5 / 4) << "bytes the host transformed";
}

// On a 32-lane config the stem's space-to-depth form (12 channels) takes
// its columns unfolded by two, so each kernel row is half the GEMMs, and the
// network stays bit-exact; allow_unfold false keeps the plain form.
TEST(AcceleratorLowering, UnfoldedStemOnThirtyTwoLanes) {
  std::map<bool, double> gemm;
  for (bool allow : {true, false}) {
    AccelOptions a;
    a.allow_unfold = allow;
    const Compiled c = compileZoo("resnet18", 64, "ultra96", a);
    const LayerDecision& stem = c.report.layers.at(1);
    ASSERT_EQ(stem.name, "conv1.qconv");
    EXPECT_TRUE(stem.offloaded && stem.space_to_depth) << stem.reason;
    EXPECT_EQ(stem.unfold_columns, allow ? 2 : 1);
    gemm[allow] = stem.estimate.gemm_cycles;
    expectBitExact(c, "fsim", "ultra96");
  }
  // Half the GEMM cycles: 8 kernel taps per output vector instead of 16.
  EXPECT_NEAR(gemm[true] / gemm[false], 0.5, 0.01);
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

// ultra96 reads 32 channels per entry and writes 16: with the output
// interleave (docs/accelerator-backend.md) every layer writes the next one's
// input layout, so in ResNet-18 and MobileNetV2 every offloaded layer whose
// input (or residual) another offloaded layer produced reads it where that
// layer left it, and an output crosses to the host only for a CPU step or
// the graph's outputs. Bit-exact on fsim.
TEST(AcceleratorLowering, InterleavedOutputsKeepActivationsOnTheDevice) {
  for (const std::string model : {"resnet18", "mobilenetv2"}) {
    const Compiled c = compileZoo(model, 64, "ultra96");
    std::map<int64_t, const rt::ArtifactStep*> produced_on_device;
    std::set<int64_t> read_on_host(c.artifact.outputs.begin(), c.artifact.outputs.end());
    for (const rt::ArtifactStep& step : c.artifact.steps) {
      if (step.kernel == "vdla.conv")
        produced_on_device[step.outputs.at(0)] = &step;
      else
        read_on_host.insert(step.inputs.begin(), step.inputs.end());
    }
    int chained = 0;
    for (const rt::ArtifactStep& step : c.artifact.steps) {
      if (step.kernel != "vdla.conv") continue;
      EXPECT_EQ(intAttr(step, "y_block"), 32) << model << ": " << step.name;
      const bool from_device = produced_on_device.count(step.inputs.at(0)) != 0;
      EXPECT_EQ(intAttr(step, "x_resident"), from_device ? 1 : 0) << model << ": " << step.name;
      chained += from_device;
      if (intAttr(step, "has_residual")) {
        EXPECT_EQ(intAttr(step, "r_resident"), produced_on_device.count(step.inputs.at(1)) ? 1 : 0)
            << model << ": " << step.name;
      }
      EXPECT_EQ(intAttr(step, "y_to_host"), read_on_host.count(step.outputs.at(0)) ? 1 : 0)
          << model << ": " << step.name;
    }
    EXPECT_GT(chained, 15) << model;
    expectBitExact(c, "fsim", "ultra96");
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
