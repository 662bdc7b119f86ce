// The CUDA backend's compile path, which needs no GPU: CUDA C++ for every
// operator case and the zoo networks, compiled by NVRTC, with every step's
// kernel present in the PTX; residual fusion; and the errors for operators
// the backend lacks, bad options and a kernel NVRTC rejects.
#include <gtest/gtest.h>

#include <set>

#include "cuda_op_cases.h"
#include "vdla/compiler/compile.h"
#include "vdla/compiler/cuda/cuda_backend.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/zoo/model_zoo.h"

namespace vdla::cuda {
namespace {

rt::Artifact refPlan(const ir::Graph& g) { return lowerToArtifact(g, "ref", "pynq", 0); }

// Every launch names a kernel the module defines, and the PTX has its entry.
void expectEntries(const GeneratedModule& m, const std::string& ptx, const std::string& what) {
  ASSERT_EQ(m.launches.size(), m.plan.steps.size()) << what;
  for (const KernelLaunch& l : m.launches) {
    EXPECT_NE(m.source.find("void __launch_bounds__"), std::string::npos) << what;
    EXPECT_NE(m.source.find(" " + l.entry + "("), std::string::npos) << what << ": " << l.entry;
    EXPECT_NE(ptx.find(".entry " + l.entry + "("), std::string::npos) << what << ": " << l.entry << " not in PTX";
    EXPECT_GE(l.grid[0], 1) << what;
    EXPECT_LE(l.block[0] * l.block[1] * l.block[2], 1024) << what;
  }
}

TEST(CudaCodegen, EveryOperatorCaseCompilesWithNvrtc) {
  const std::vector<testing::OpCase> cases = testing::operatorCases();
  ASSERT_GE(cases.size(), 50u);
  std::set<std::string> ops;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto g = c.build();
    const GeneratedModule m = generateCudaModule(refPlan(*g), CudaCodegenOptions{});
    for (const auto& s : m.plan.steps) ops.insert(s.kernel);
    const NvrtcOutput out = compileWithNvrtc(m.source, "compute_90");
    expectEntries(m, out.ptx, c.name);
  }
  // The operators the zoo networks and the optimised graphs use are all covered.
  for (const char* op : {"Conv",
                         "Gemm",
                         "MatMul",
                         "Add",
                         "Clip",
                         "MaxPool",
                         "AveragePool",
                         "GlobalAveragePool",
                         "Softmax",
                         "Flatten",
                         "Reshape",
                         "Concat",
                         "Transpose",
                         "Pad",
                         "BatchNormalization",
                         "ConvInteger",
                         "QLinearConv",
                         "vdla.QConv",
                         "MatMulInteger",
                         "QLinearMatMul",
                         "com.microsoft.QGemm",
                         "com.microsoft.QLinearAdd",
                         "com.microsoft.QLinearMul",
                         "com.microsoft.QLinearGlobalAveragePool",
                         "QuantizeLinear",
                         "DequantizeLinear",
                         "Cast"})
    EXPECT_TRUE(ops.count(std::string("ref.") + op)) << op;
}

TEST(CudaCodegen, ConvolutionFusesItsResidualAdd) {
  for (const auto& c : testing::operatorCases()) {
    if (c.name != "conv_residual_relu") continue;
    auto g = c.build();
    const rt::Artifact plan = refPlan(*g);
    ASSERT_EQ(plan.steps.size(), 2u);
    GeneratedModule m = generateCudaModule(plan, CudaCodegenOptions{});
    ASSERT_EQ(m.plan.steps.size(), 1u);
    EXPECT_EQ(m.plan.steps[0].attrs.getInt("cuda.residual"), 1);
    EXPECT_EQ(m.plan.steps[0].attrs.getString("cuda.residual_activation"), "Relu");
    EXPECT_EQ(m.plan.steps[0].outputs, plan.steps[1].outputs);
    CudaCodegenOptions unfused;
    unfused.fuse_residual = false;
    EXPECT_EQ(generateCudaModule(plan, unfused).plan.steps.size(), 2u);
    return;
  }
  FAIL() << "no residual case";
}

// The per-layer kernel choice (measured on an H200, see emit_conv.cpp):
// 64x64 tiles when their grid keeps the GPU busy, 32x32 otherwise, and TF32
// tensor cores only for 1x1 convolutions with a busy grid.
TEST(CudaCodegen, ConvKernelIsChosenByTheLayersShape) {
  auto bodyOf = [](const rt::Shape& x, const rt::Shape& w, bool tf32) {
    auto g = std::make_unique<ir::Graph>();
    ir::Value* in = g->addInput("x", rt::TensorType{rt::DType::F32, x, rt::Layout::RowMajor});
    rt::AttributeMap a;
    const int64_t pad = w[2] / 2;
    a.set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    ir::Node* n = g->addNode("Conv", {in, g->addConstant("w", rt::Tensor(rt::DType::F32, w))}, 1, a, "conv");
    g->addOutput(n->output(0));
    passes::inferShapes(*g);
    CudaCodegenOptions o;
    o.tf32_tensor_cores = tf32;
    const std::string src = generateCudaModule(refPlan(*g), o).source;
    const size_t at = src.find("vdla::convImplicitGemm");
    return at == std::string::npos ? std::string() : src.substr(at, src.find('(', at) - at);
  };
  // ResNet-18's last 3x3 layer: 8 blocks of 64x64 at batch 1, 104 at batch 16.
  EXPECT_EQ(bodyOf({1, 512, 7, 7}, {512, 512, 3, 3}, false), "vdla::convImplicitGemm<P, 32, 32, 16, 2, 2>");
  EXPECT_EQ(bodyOf({16, 512, 7, 7}, {512, 512, 3, 3}, false), "vdla::convImplicitGemm<P, 64, 64, 16, 4, 4>");
  EXPECT_EQ(bodyOf({16, 512, 7, 7}, {512, 512, 3, 3}, true), "vdla::convImplicitGemm<P, 64, 64, 16, 4, 4>");
  EXPECT_EQ(bodyOf({16, 256, 14, 14}, {512, 256, 1, 1}, true), "vdla::convImplicitGemmTf32<P>");
  EXPECT_EQ(bodyOf({1, 256, 14, 14}, {512, 256, 1, 1}, true), "vdla::convImplicitGemm<P, 32, 32, 16, 2, 2>");
}

TEST(CudaCodegen, UnknownConvKernelIsRefusedWithTheKnownOnes) {
  for (const auto& c : testing::operatorCases()) {
    if (c.name != "conv3x3_bias_relu") continue;
    auto g = c.build();
    CudaCodegenOptions o;
    o.conv_kernel = "simt-7x7";
    try {
      generateCudaModule(refPlan(*g), o);
      FAIL() << "no error";
    } catch (const CudaBackendError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("unknown convolution kernel 'simt-7x7'"), std::string::npos) << m;
      EXPECT_NE(m.find("simt-64x64"), std::string::npos) << m;
    }
    o.conv_kernel = "tf32-64x64";
    EXPECT_THROW(generateCudaModule(refPlan(*g), o), CudaBackendError);  // TF32 not switched on
    return;
  }
  FAIL() << "no conv3x3_bias_relu case";
}

TEST(CudaCodegen, Tf32TensorCorePathCompilesForSm90) {
  CudaCodegenOptions o;
  o.tf32_tensor_cores = true;
  o.conv_kernel = "tf32-64x64";
  for (const auto& c : testing::operatorCases()) {
    if (c.name != "conv_large_tile") continue;
    auto g = c.build();
    const GeneratedModule m = generateCudaModule(refPlan(*g), o);
    EXPECT_NE(m.source.find("convImplicitGemmTf32<P>"), std::string::npos);
    EXPECT_EQ(m.launches[0].block[0], 128);
    const NvrtcOutput out = compileWithNvrtc(m.source, "sm_90");
    EXPECT_GT(out.cubin.size(), 1000u);
    return;
  }
  FAIL() << "no conv_large_tile case";
}

// A whole zoo network through the compile driver: one launch per step, every
// entry in the PTX, a cubin for sm_90 and the source kept in the artifact.
void compileNetwork(const std::string& name, size_t expected_fusions) {
  zoo::ZooOptions zo;
  auto g = zoo::buildModel(name, zo);
  CompileOptions opts;
  opts.target = "cuda";
  const rt::Artifact a = compileGraph(*g, opts);
  EXPECT_EQ(a.target, "cuda");
  ASSERT_TRUE(a.blobs.count("cuda.ptx") && a.blobs.count("cuda.cubin.sm_90") && a.blobs.count("cuda.source"));
  const std::string ptx(a.blobs.at("cuda.ptx").begin(), a.blobs.at("cuda.ptx").end());
  EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
  EXPECT_GT(a.blobs.at("cuda.cubin.sm_90").size(), 1000u);
  size_t fused = 0;
  for (const rt::ArtifactStep& s : a.steps) {
    EXPECT_EQ(s.kernel, "cuda.launch");
    const std::string entry = s.attrs.getString("cuda.entry");
    EXPECT_NE(ptx.find(".entry " + entry + "("), std::string::npos) << s.name;
    EXPECT_EQ(s.attrs.getInts("cuda.grid").size(), 3u);
    fused += s.attrs.getInt("cuda.residual", 0);
  }
  EXPECT_EQ(fused, expected_fusions) << name;
  // A save/load round trip keeps the kernels.
  const rt::Artifact back = rt::deserializeArtifact(rt::serializeArtifact(a));
  EXPECT_EQ(back.blobs.at("cuda.cubin.sm_90"), a.blobs.at("cuda.cubin.sm_90"));
}

TEST(CudaCodegen, ResNet18) { compileNetwork("resnet18", 8); }
TEST(CudaCodegen, ResNet50) { compileNetwork("resnet50", 16); }
TEST(CudaCodegen, MobileNetV2) { compileNetwork("mobilenetv2", 10); }

template <class F>
std::string errorOf(F f) {
  try {
    f();
  } catch (const CudaBackendError& e) {
    return e.what();
  }
  return "";
}

TEST(CudaCodegen, UnsupportedOperatorNamesTheStep) {
  // Every operator of the graph IR has a kernel, so the plan names a kernel
  // no front end produces (as an artifact from a newer compiler could).
  ir::Graph g;
  ir::Value* a = g.addInput("a", rt::TensorType{rt::DType::F32, {2, 4}, rt::Layout::RowMajor});
  ir::Node* n = g.addNode("Relu", {a}, 1, {}, "act");
  n->output(0)->setType(rt::TensorType{rt::DType::F32, {2, 4}, rt::Layout::RowMajor});
  g.addOutput(n->output(0));
  rt::Artifact plan = refPlan(g);
  plan.steps[0].kernel = "ref.Erf";
  const std::string e = errorOf([&] { generateCudaModule(plan, CudaCodegenOptions{}); });
  EXPECT_NE(e.find("step 0 'act' (Erf): operator 'Erf' is not supported by the CUDA backend"), std::string::npos) << e;
}

TEST(CudaCodegen, UnsupportedElementTypeNamesTheTensor) {
  ir::Graph g;
  ir::Value* x = g.addInput("x", rt::TensorType{rt::DType::I32, {4}, rt::Layout::RowMajor});
  ir::Node* n = g.addNode("Sigmoid", {x}, 1, {}, "sig");
  n->output(0)->setType(rt::TensorType{rt::DType::I32, {4}, rt::Layout::RowMajor});
  g.addOutput(n->output(0));
  const std::string e = errorOf([&] { generateCudaModule(refPlan(g), CudaCodegenOptions{}); });
  EXPECT_NE(e.find("step 0 'sig' (Sigmoid): element type i32 is not supported (f32 only)"), std::string::npos) << e;
}

TEST(CudaCodegen, BadArchitectureIsRefused) {
  auto g = testing::operatorCases()[0].build();
  CudaCodegenOptions o;
  o.archs = {"sm_9x"};
  EXPECT_NE(errorOf([&] { lowerForCuda(refPlan(*g), o); }).find("architecture 'sm_9x' is not of the form sm_XY"),
            std::string::npos);
  o.archs = {"sm_75"};
  o.tf32_tensor_cores = true;
  EXPECT_NE(errorOf([&] { lowerForCuda(refPlan(*g), o); }).find("TF32 tensor cores need sm_80 or later"),
            std::string::npos);
}

TEST(CudaCodegen, NvrtcErrorNamesTheStepOfTheBrokenKernel) {
  auto g = testing::operatorCases()[0].build();
  GeneratedModule m = generateCudaModule(refPlan(*g), CudaCodegenOptions{});
  const std::string anchor = "using P = " + m.launches[0].entry + "_P;";
  const size_t at = m.source.find(anchor);
  ASSERT_NE(at, std::string::npos);
  m.source.insert(at + anchor.size(), " this_is_not_cuda;");
  const std::string e = errorOf([&] { compileWithNvrtc(m.source, "compute_90"); });
  EXPECT_NE(e.find("NVRTC compilation for compute_90 failed"), std::string::npos) << e;
  EXPECT_NE(e.find("the kernel of step 0 'conv3x3_bias_relu' (Conv) does not compile"), std::string::npos) << e;
  EXPECT_NE(e.find("this_is_not_cuda"), std::string::npos) << e;
}

}  // namespace
}  // namespace vdla::cuda
