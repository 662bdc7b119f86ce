// The deployable runtime cross-built for ARM and run under qemu user
// emulation: armv7 (Cortex-A9, NEON, hard float) and aarch64. Generated code
// and the reference kernels on ARM against the reference executor on this
// host, and the ARM runner's refusals of code and inputs that do not fit. The
// ARM builds come from the ExternalProjects in this folder's CMakeLists.txt;
// an architecture whose cross compiler or qemu is missing skips, saying so.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "llvm_test_util.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/runtime/artifact.h"
#include "vdla/runtime/native/native_library.h"

namespace vdla::cpu::test {
namespace {

// What the ARM runner printed and how it exited.
struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

std::string readText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeBytes(const std::string& path, const void* data, size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

// One ARM architecture: the CPU back end's name for it, what the runtime's
// loader calls it, and its cross-built runner with the emulator to run it.
struct ArmArch {
  const char* cpu;       // --cpu
  const char* elf_name;  // in the loader's messages
  const char* runner;    // nullptr when this build has no ARM runtime for it
  const char* qemu;
  const char* sysroot;
  const char* packages;  // what provides the tools
};

#ifndef VDLA_ARMV7_RUNNER
#define VDLA_ARMV7_RUNNER nullptr
#define VDLA_ARMV7_QEMU nullptr
#define VDLA_ARMV7_SYSROOT nullptr
#endif
#ifndef VDLA_AARCH64_RUNNER
#define VDLA_AARCH64_RUNNER nullptr
#define VDLA_AARCH64_QEMU nullptr
#define VDLA_AARCH64_SYSROOT nullptr
#endif

const ArmArch kArmv7{
    "armv7", "arm", VDLA_ARMV7_RUNNER, VDLA_ARMV7_QEMU, VDLA_ARMV7_SYSROOT, "g++-arm-linux-gnueabihf and qemu-user"};
const ArmArch kAarch64{"aarch64",
                       "aarch64",
                       VDLA_AARCH64_RUNNER,
                       VDLA_AARCH64_QEMU,
                       VDLA_AARCH64_SYSROOT,
                       "g++-aarch64-linux-gnu and qemu-user"};

// Names the parameter in test listings ("armv7", not an address).
void PrintTo(const ArmArch* arch, std::ostream* os) { *os << arch->cpu; }

class ArmRuntime : public ::testing::TestWithParam<const ArmArch*> {
 protected:
  void SetUp() override {
    const ArmArch& a = arch();
    if (!a.runner)
      GTEST_SKIP() << "no " << a.cpu << " runtime in this build: its cross compiler or qemu was not found when "
                   << "CMake ran (install " << a.packages << ", then re-run cmake)";
    if (!std::ifstream(a.runner)) GTEST_SKIP() << "the " << a.cpu << " runner " << a.runner << " is missing";
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "/vdla_arm_" + std::string(a.cpu) + "_" +
           std::string(info->name()).substr(0, std::string(info->name()).find('/'));
    std::filesystem::create_directories(dir_);
  }

  // The ResNet-18 artifacts hold 45 MiB of weights each.
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  const ArmArch& arch() const { return *GetParam(); }

  // Runs the ARM runner on `args` under qemu with two worker threads.
  RunResult runOnArm(const std::string& args) {
    RunResult r;
    const std::string log = dir_ + "/runner.log";
    const std::string cmd = "VDLA_NUM_THREADS=2 '" + std::string(arch().qemu) + "' -L '" + arch().sysroot + "' '" +
                            arch().runner + "' " + args + " > '" + log + "' 2>&1";
    const int status = std::system(cmd.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.output = readText(log);
    return r;
  }

  // Saves the artifact, runs it on ARM on `input` and returns its one output.
  rt::Tensor runArtifactOnArm(const rt::Artifact& artifact, const rt::Tensor& input, const rt::TensorType& out_type,
                              const std::string& extra_args = "") {
    const std::string path = dir_ + "/model.vdla", in = dir_ + "/input.bin", out = dir_ + "/output.bin";
    rt::saveArtifact(artifact, path);
    writeBytes(in, input.raw(), input.byteSize());
    std::remove(out.c_str());
    RunResult r = runOnArm("'" + path + "' --input '" + in + "' --output '" + out + "' " + extra_args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("target " + artifact.target), std::string::npos) << r.output;
    const std::string bytes = readText(out);
    rt::Tensor result(out_type);
    EXPECT_EQ(bytes.size(), result.byteSize()) << "output file of the ARM run; runner said:\n" << r.output;
    if (bytes.size() == result.byteSize()) std::copy(bytes.begin(), bytes.end(), static_cast<char*>(result.raw()));
    return result;
  }

  std::string dir_;
};

std::unique_ptr<ir::Graph> resnet18(int64_t image_size) {
  zoo::ZooOptions zo;
  zo.image_size = image_size;
  std::unique_ptr<ir::Graph> g = zoo::buildModel("resnet18", zo);
  runStandardPipeline(*g, PipelineOptions{});
  return g;
}

// A graph of one Relu on f32[4]: enough to exercise loading and refusals.
std::unique_ptr<ir::Graph> reluGraph() {
  auto g = std::make_unique<ir::Graph>();
  ir::Value* x = g->addInput("x", {rt::DType::F32, {4}});
  g->addOutput(g->addNode("Relu", {x}, 1, {}, "relu")->output());
  passes::inferShapes(*g);
  return g;
}

// ResNet-18 at 64x64 compiled for the architecture (packed NEON GEMM, fused
// residuals, pooling, Gemm) and run by the ARM runtime through dlopen, against
// the reference executor on this host.
TEST_P(ArmRuntime, ResNet18GeneratedCodeMatchesHostReference) {
  std::unique_ptr<ir::Graph> g = resnet18(64);
  std::mt19937 rng(7);
  const rt::Tensor input = randomTensor(g->inputs()[0]->type().shape, rng);
  const rt::Tensor want = runReference(*g, {input})[0];

  rt::Artifact code = compileShared(*g, CpuTarget::named(arch().cpu));
  ASSERT_TRUE(code.blobs.count("llvm.so"));
  const rt::Tensor got = runArtifactOnArm(code, input, want.type());
  expectClose(got, want, "ResNet-18 (64x64) on " + std::string(arch().cpu) + " under qemu");
}

// What a board runs: ResNet-18 at 64x64 compiled for the accelerator (pynq)
// with the CPU steps generated for the architecture, run by the ARM runtime
// built with VDLA_RUNTIME_ACCEL through the ARM driver on fsim (the board's
// pynq device needs the hardware), against the reference executor on the
// quantised graph on this host.
TEST_P(ArmRuntime, AcceleratorArtifactOnFsimMatchesHostReference) {
  zoo::ZooOptions zo;
  zo.image_size = 64;
  std::unique_ptr<ir::Graph> g = zoo::buildModel("resnet18", zo);
  CompileOptions options;
  options.target = "vdla";
  options.hw_config = "pynq";
  options.llvm_library_cpu = arch().cpu;
  CompileReport report;
  const rt::Artifact artifact = compileGraph(*g, options, &report);  // quantises g in place
  ASSERT_TRUE(artifact.blobs.count("llvm.so"));
  size_t offloaded = 0;
  for (const auto& d : report.layers) offloaded += d.offloaded;
  EXPECT_GE(offloaded, 20u);
  std::mt19937 rng(9);
  const rt::Tensor input = randomTensor(g->inputs()[0]->type().shape, rng, -2, 2);
  const rt::Tensor want = runReference(*g, {input})[0];
  const rt::Tensor got = runArtifactOnArm(artifact, input, want.type(), "--device fsim");
  expectClose(got, want,
              "int8 ResNet-18 (64x64) on the accelerator (fsim) with " + std::string(arch().cpu) + " CPU steps");
  // Without --device the runner says what it needs.
  const std::string path = dir_ + "/model.vdla", in = dir_ + "/input.bin";
  RunResult r = runOnArm("'" + path + "' --input '" + in + "'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("target 'vdla' needs --device"), std::string::npos) << r.output;
}

// The generated quantisation of a network's input (a multiplication by the
// scale's reciprocal in NEON, chunks near a rounding boundary redone with
// the reference's division) is bit-exact on ARM too, where NEON flushes
// subnormals and has no division.
TEST_P(ArmRuntime, InputQuantizationNearTiesIsExact) {
  for (rt::DType dtype : {rt::DType::I8, rt::DType::U8}) {
    const int64_t n = 16384 + 901;
    ir::Graph g;
    ir::Value* x = g.addInput("x", {rt::DType::F32, {n}});
    rt::Tensor scale(rt::DType::F32, {});
    scale.data<float>()[0] = 0.0187f;
    rt::Tensor zp(dtype, {});
    *static_cast<int8_t*>(zp.raw()) = static_cast<int8_t>(dtype == rt::DType::I8 ? -3 : 117);
    g.addOutput(
        g.addNode("QuantizeLinear", {x, g.addConstant("s", scale), g.addConstant("z", zp)}, 1, {}, "q")->output());
    passes::inferShapes(g);
    std::mt19937 rng(12);
    const rt::Tensor input = nearTieInputs(n, 0.0187f, rng);
    const rt::Tensor want = runReference(g, {input})[0];
    const rt::Tensor got = runArtifactOnArm(compileShared(g, CpuTarget::named(arch().cpu)), input, want.type());
    const auto* got_bytes = static_cast<const uint8_t*>(got.raw());
    const auto* want_bytes = static_cast<const uint8_t*>(want.raw());
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i)
      if (got_bytes[i] != want_bytes[i] && differ++ < 5)
        ADD_FAILURE() << rt::dtypeName(dtype) << " element " << i << " (" << input.data<float>()[i] << ") is byte "
                      << int(got_bytes[i]) << ", reference " << int(want_bytes[i]);
    EXPECT_EQ(differ, 0) << rt::dtypeName(dtype) << ": " << differ << " of " << n << " elements differ on "
                         << arch().cpu;
  }
}

// The reference kernels cross-compiled for ARM (target ref: no generated code)
// give the host's results on the same network.
TEST_P(ArmRuntime, ReferenceKernelsMatchHost) {
  std::unique_ptr<ir::Graph> g = resnet18(32);
  std::mt19937 rng(8);
  const rt::Tensor input = randomTensor(g->inputs()[0]->type().shape, rng);
  const rt::Tensor want = runReference(*g, {input})[0];

  CompileOptions options;
  options.target = "ref";
  const rt::Tensor got = runArtifactOnArm(compileGraph(*g, options), input, want.type());
  expectClose(got, want, "ResNet-18 (32x32) with reference kernels on " + std::string(arch().cpu));
}

// Code for another machine (this host's, and the other ARM architecture's) is
// refused by name before dlopen.
TEST_P(ArmRuntime, ForeignCodeIsRefused) {
  std::unique_ptr<ir::Graph> g = reluGraph();
  const float values[4] = {1, -2, 3, -4};
  const std::string in = dir_ + "/x.bin";
  writeBytes(in, values, sizeof(values));
  const ArmArch& other = &arch() == &kArmv7 ? kAarch64 : kArmv7;
  for (const auto& [target, name] : {std::pair{CpuTarget::host(), std::string(rt::native::hostElfArchitecture())},
                                     std::pair{CpuTarget::named(other.cpu), std::string(other.elf_name)}}) {
    const std::string path = dir_ + "/foreign.vdla";
    rt::saveArtifact(compileShared(*g, target), path);
    RunResult r = runOnArm("'" + path + "' --input '" + in + "'");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("CPU code is for " + name + ", but this runtime runs on " + arch().elf_name),
              std::string::npos)
        << r.output;
  }
}

// An input file of the wrong size is refused with the input's name and type.
TEST_P(ArmRuntime, WrongInputSizeIsRefused) {
  const std::string path = dir_ + "/relu.vdla", in = dir_ + "/short.bin";
  rt::saveArtifact(compileShared(*reluGraph(), CpuTarget::named(arch().cpu)), path);
  const float values[3] = {1, -2, 3};
  writeBytes(in, values, sizeof(values));
  RunResult r = runOnArm("'" + path + "' --input '" + in + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("has 12 bytes, but input 0 'x' is f32[4] (16 bytes)"), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(Arch, ArmRuntime, ::testing::Values(&kArmv7, &kAarch64),
                         [](const ::testing::TestParamInfo<const ArmArch*>& info) {
                           return std::string(info.param->cpu);
                         });

}  // namespace
}  // namespace vdla::cpu::test
