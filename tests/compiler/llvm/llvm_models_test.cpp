// Whole networks from the zoo through the CPU back end against the reference
// executor (reduced input sizes keep the reference run short), the compile
// driver's target "llvm", and the ahead-of-time path: a shared library in
// the artifact, saved, loaded and run by the runtime alone through dlopen.
#include <cstdio>

#include "llvm_test_util.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/zoo/model_zoo.h"

namespace vdla::cpu::test {
namespace {

std::vector<rt::Tensor> zooInput(const ir::Graph& g) {
  std::mt19937 rng(42);
  return {randomTensor(g.inputs()[0]->type().shape, rng)};
}

void checkZooModel(const std::string& name, int64_t image_size) {
  zoo::ZooOptions zo;
  zo.image_size = image_size;
  std::unique_ptr<ir::Graph> g = zoo::buildModel(name, zo);
  runStandardPipeline(*g, PipelineOptions{});
  const std::vector<rt::Tensor> inputs = zooInput(*g);
  const std::vector<rt::Tensor> want = runReference(*g, inputs);
  JitProgram program = compileJit(*g);
  rt::Executor executor(program.artifact, *program.kernels);
  const std::vector<rt::Tensor> got = executor.run(inputs);
  ASSERT_EQ(got.size(), 1u);
  expectClose(got[0], want[0], name);
}

TEST(LlvmModels, ResNet18MatchesReference) { checkZooModel("resnet18", 64); }
TEST(LlvmModels, MobileNetV2MatchesReference) { checkZooModel("mobilenetv2", 64); }
TEST(LlvmModels, ResNet50MatchesReference) { checkZooModel("resnet50", 32); }

TEST(LlvmModels, CompileDriverTargetAndSharedLibrary) {
  ASSERT_TRUE(isTargetAvailable("llvm"));
  zoo::ZooOptions zo;
  zo.image_size = 32;
  std::unique_ptr<ir::Graph> g = zoo::buildModel("resnet18", zo);
  CompileOptions options;
  options.target = "llvm";
  CompileReport report;
  rt::Artifact jit = compileGraph(*g, options, &report);
  ASSERT_TRUE(report.kernels);
  const std::vector<rt::Tensor> inputs = zooInput(*g);
  const std::vector<rt::Tensor> want = runReference(*g, inputs);
  expectClose(rt::Executor(jit, *report.kernels).run(inputs)[0], want[0], "JIT through the compile driver");

  // Ahead of time: the artifact carries its code and the runtime loads it.
  options.llvm_library_cpu = "host";
  rt::Artifact aot = compileGraph(*g, options);
  ASSERT_TRUE(aot.blobs.count("llvm.so"));
  const std::string path = ::testing::TempDir() + "/resnet18_llvm.vdla";
  rt::saveArtifact(aot, path);
  rt::Executor loaded(rt::loadArtifact(path));
  expectClose(loaded.run(inputs)[0], want[0], "shared library loaded by the runtime");
  std::remove(path.c_str());
}

TEST(LlvmModels, ForeignArchitectureLibraryIsRefused) {
  std::mt19937 rng(1);
  ir::Graph g;
  ir::Value* x = g.addInput("x", {rt::DType::F32, {4}});
  g.addOutput(g.addNode("Relu", {x}, 1, {}, "relu")->output());
  passes::inferShapes(g);
  rt::Artifact arm = compileShared(g, CpuTarget::named("aarch64"));
  try {
    rt::Executor executor(arm);
    FAIL() << "an aarch64 library was loaded on this machine";
  } catch (const rt::ArtifactError& e) {
    EXPECT_NE(std::string(e.what()).find("aarch64"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace vdla::cpu::test
