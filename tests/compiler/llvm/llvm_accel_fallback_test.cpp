// The CPU back end as the CPU fallback of target "vdla": the int8 ResNet-18
// runs on the accelerator (fsim) with its CPU steps as reference kernels, as
// JIT'ed code and as a shared library in a saved artifact; the outputs must
// be identical byte for byte. An operator the back end lacks keeps its
// reference kernel, with the reason reported.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <set>

#include "vdla/compiler/compile.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/driver/device.h"
#include "vdla/runtime/executor.h"

namespace vdla::cpu::test {
namespace {

struct Compiled {
  std::unique_ptr<ir::Graph> graph;
  rt::Artifact artifact;
  CompileReport report;
};

Compiled compileResNet(bool fallback, const std::string& library_cpu) {
  Compiled c;
  zoo::ZooOptions zo;
  zo.image_size = 64;
  c.graph = zoo::buildModel("resnet18", zo);
  CompileOptions o;
  o.target = "vdla";
  o.llvm_cpu_fallback = fallback;
  o.llvm_library_cpu = library_cpu;
  // The int8 max pooling stays a CPU step, so that its generated code is covered too.
  o.accel.offload_pooling = false;
  c.artifact = compileGraph(*c.graph, o, &c.report);
  return c;
}

rt::Tensor seededInput(const rt::TensorType& type) {
  rt::Tensor t(type);
  uint32_t s = 12345;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    s = s * 1664525u + 1013904223u;
    t.data<float>()[i] = static_cast<float>(s >> 8) / float(1 << 24) * 4.0f - 2.0f;
  }
  return t;
}

std::vector<rt::Tensor> runOnFsim(const rt::Artifact& a, const rt::KernelRegistry* kernels, const rt::Tensor& x) {
  auto device = driver::createDevice("fsim", hw::loadConfig("pynq"));
  rt::ExecutorOptions options;
  options.device = device.get();
  std::unique_ptr<rt::Executor> ex =
      kernels ? std::make_unique<rt::Executor>(a, *kernels, options) : std::make_unique<rt::Executor>(a, options);
  return ex->run({x});
}

void expectIdentical(const std::vector<rt::Tensor>& got, const std::vector<rt::Tensor>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].type(), want[i].type()) << what;
    EXPECT_EQ(std::memcmp(got[i].raw(), want[i].raw(), want[i].byteSize()), 0)
        << what << ": output " << i << " differs";
  }
}

TEST(LlvmCpuFallback, Int8ResNet18BitIdenticalWithAndWithoutLlvm) {
  const Compiled ref = compileResNet(false, "");
  for (const rt::ArtifactStep& s : ref.artifact.steps) EXPECT_FALSE(s.kernel.rfind("llvm.", 0) == 0) << s.name;
  const rt::Tensor x = seededInput(ref.graph->inputs()[0]->type());
  const std::vector<rt::Tensor> want = runOnFsim(ref.artifact, nullptr, x);

  // JIT: every CPU step of the int8 network is generated code.
  const Compiled jit = compileResNet(true, "");
  ASSERT_TRUE(jit.report.kernels);
  std::set<std::string> generated_ops;
  size_t cpu_steps = 0;
  for (size_t i = 0; i < jit.artifact.steps.size(); ++i) {
    const accel::LayerDecision& d = jit.report.layers.at(i);
    if (d.offloaded) continue;
    ++cpu_steps;
    EXPECT_EQ(d.cpu_code, "llvm") << d.name << ": " << d.cpu_reason;
    EXPECT_EQ(jit.artifact.steps[i].kernel.rfind("llvm.", 0), 0u) << d.name;
    generated_ops.insert(d.op);
  }
  EXPECT_GE(cpu_steps, 4u);
  for (const char* op : {"QuantizeLinear", "MaxPool", "com.microsoft.QLinearGlobalAveragePool", "DequantizeLinear"})
    EXPECT_TRUE(generated_ops.count(op)) << op << " is not among the generated CPU steps";
  expectIdentical(runOnFsim(jit.artifact, jit.report.kernels.get(), x), want, "JIT fallback");

  // Ahead of time: saved with its shared library, loaded by the runtime alone.
  const Compiled aot = compileResNet(true, "host");
  ASSERT_TRUE(aot.artifact.blobs.count("llvm.so"));
  const std::string path = ::testing::TempDir() + "/resnet18_vdla_llvm.vdla";
  rt::saveArtifact(aot.artifact, path);
  expectIdentical(runOnFsim(rt::loadArtifact(path), nullptr, x), want, "shared library fallback");
  std::remove(path.c_str());
}

// Transpose has no emitter: its step keeps the reference kernel, the rest of
// the CPU steps are generated, and the results agree.
TEST(LlvmCpuFallback, UnsupportedOperatorKeepsReferenceKernel) {
  auto build = [] {
    auto g = std::make_unique<ir::Graph>();
    g->name = "transposed";
    ir::Value* x = g->addInput("x", {rt::DType::F32, {1, 8, 6, 6}});
    rt::Tensor w(rt::DType::F32, {16, 8, 3, 3});
    for (int64_t i = 0; i < w.numElements(); ++i) w.data<float>()[i] = static_cast<float>((i * 37) % 17 - 8) / 16.0f;
    rt::AttributeMap conv;
    conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    ir::Value* y = g->addNode("Conv", {x, g->addConstant("w", w)}, 1, conv, "conv")->output();
    rt::AttributeMap perm;
    perm.set("perm", std::vector<int64_t>{0, 2, 3, 1});
    g->addOutput(g->addNode("Transpose", {y}, 1, perm, "transpose")->output());
    return g;
  };
  std::vector<rt::Tensor> results[2];
  for (int fallback = 0; fallback < 2; ++fallback) {
    auto g = build();
    CompileOptions o;
    o.target = "vdla";
    o.llvm_cpu_fallback = fallback == 1;
    CompileReport report;
    const rt::Artifact a = compileGraph(*g, o, &report);
    if (fallback) {
      bool saw_transpose = false, saw_generated = false;
      for (size_t i = 0; i < a.steps.size(); ++i) {
        const accel::LayerDecision& d = report.layers.at(i);
        if (d.op == "Transpose") {
          saw_transpose = true;
          EXPECT_EQ(a.steps[i].kernel, "ref.Transpose");
          EXPECT_EQ(d.cpu_code, "ref");
          EXPECT_NE(d.cpu_reason.find("does not support operator 'Transpose'"), std::string::npos) << d.cpu_reason;
        }
        saw_generated |= a.steps[i].kernel.rfind("llvm.", 0) == 0;
      }
      EXPECT_TRUE(saw_transpose);
      EXPECT_TRUE(saw_generated);
    }
    results[fallback] = runOnFsim(a, report.kernels.get(), seededInput(g->inputs()[0]->type()));
  }
  expectIdentical(results[1], results[0], "partial fallback");
}

}  // namespace
}  // namespace vdla::cpu::test
