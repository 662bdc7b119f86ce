// The emulated driver itself: that it catches what it is there to catch.
// Each test breaks one generated kernel on purpose (an index off by one, a
// loop bound, a missing barrier, a barrier or a shuffle not every thread
// reaches) and expects
// either a result the comparison rejects or an error naming the fault.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cuda_compare.h"
#include "cuda_op_cases.h"
#include "emulation_harness.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/reference_executor.h"
#include "vdla/runtime/cuda/cuda_session.h"
#include "vdla/runtime/executor.h"

namespace vdla::cuda::testing {
namespace {

rt::TensorType f32(rt::Shape s) { return rt::TensorType{rt::DType::F32, std::move(s), rt::Layout::RowMajor}; }

std::unique_ptr<ir::Graph> oneNode(const std::string& op, std::vector<rt::Shape> inputs,
                                   std::vector<std::pair<rt::Shape, uint64_t>> weights = {},
                                   const rt::AttributeMap& attrs = {}) {
  auto g = std::make_unique<ir::Graph>();
  g->name = "broken_" + op;
  std::vector<ir::Value*> ins;
  for (size_t i = 0; i < inputs.size(); ++i) ins.push_back(g->addInput("x" + std::to_string(i), f32(inputs[i])));
  for (size_t i = 0; i < weights.size(); ++i) {
    ir::Value* in = g->addInput("w" + std::to_string(i), f32(weights[i].first));
    ins.push_back(in);
  }
  for (ir::Value* v : g->addNode(op, ins, 1, attrs, op)->outputs()) g->addOutput(v);
  passes::inferShapes(*g);
  return g;
}

struct Outcome {
  std::string error;  // the runtime's error, or ""
  double scaled_error = 0;
};

// Compiles `g`, replaces `from` by `to` in its generated source (the first
// occurrence in the kernels, else in the device library), runs it on the emulated driver and compares with the
// reference executor.
Outcome runBroken(ir::Graph& g, const std::string& from, const std::string& to) {
  rt::Artifact a = compileCuda(g, false);
  std::vector<uint8_t>& blob = a.blobs.at("cuda.source");
  std::string source(blob.begin(), blob.end());
  // The step's own kernel first, then the device library.
  size_t at = source.find(from, source.find("// ---- kernels"));
  if (at == std::string::npos) at = source.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' is not in the generated source";
  if (at == std::string::npos) return {"not patched", 0};
  source.replace(at, from.size(), to);
  blob.assign(source.begin(), source.end());
  prepareEmulation(a);
  std::vector<rt::Tensor> inputs;
  for (size_t i = 0; i < g.inputs().size(); ++i) inputs.push_back(caseInput(*g.inputs()[i], 31 + i));
  Outcome o;
  try {
    rt::Executor ex(a);
    const std::vector<rt::Tensor> got = ex.run(inputs);
    o.scaled_error = scaledError(got.at(0), runReference(g, inputs).at(0));
  } catch (const std::exception& e) {
    o.error = e.what();
  }
  return o;
}

// The unpatched kernels pass, so that the failures below are the patches'.
TEST(CudaEmulation, UnbrokenKernelsMatch) {
  for (const char* op : {"Relu", "Softmax"}) {
    auto g = oneNode(op, {{3, 37}});
    const Outcome o = runBroken(*g, "// ---- kernels", "// ---- kernels");
    EXPECT_EQ(o.error, "") << op;
    EXPECT_LE(o.scaled_error, 1e-6) << op;
  }
}

TEST(CudaEmulation, ReadOnePastTheEndIsCaught) {
  auto g = oneNode("Relu", {{3, 37}});
  const Outcome o = runBroken(*g, "const T v = x[i];", "const T v = x[i + 1];");
  EXPECT_NE(o.error.find("invalid memory access"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("byte offset 444 of argument 0, which has 444 bytes"), std::string::npos) << o.error;
  EXPECT_NE(o.error.find("step 0 'Relu' (Relu)"), std::string::npos) << o.error;
}

TEST(CudaEmulation, WriteOnePastTheEndIsCaught) {
  auto g = oneNode("Relu", {{3, 37}});
  const Outcome o = runBroken(*g, "    y[i] = ", "    y[i + 1] = ");
  EXPECT_NE(o.error.find("byte offset 444 of argument 1, which has 444 bytes"), std::string::npos) << o.error;
}

TEST(CudaEmulation, AnElementLeftUnwrittenIsCaught) {
  auto g = oneNode("Relu", {{3, 37}});
  const Outcome o = runBroken(*g, "i < P::total;", "i < P::total - 1;");
  EXPECT_EQ(o.error, "");
  EXPECT_GT(o.scaled_error, 1e-3);  // the last element keeps the emulator's NaN fill
}

// An off-by-one in the convolution's im2col column index still reads inside
// the input (the bounds test uses the shifted index too); only the values
// are wrong, and the comparison with the reference catches them.
TEST(CudaEmulation, OffByOneConvolutionIndexIsCaught) {
  auto g = oneNode("Conv", {{1, 4, 9, 9}}, {{{8, 4, 3, 3}, 0}}, [] {
    rt::AttributeMap m;
    m.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    return m;
  }());
  const Outcome o = runBroken(*g, "const int iw = o.iw0 + kw * P::DW;", "const int iw = o.iw0 + kw * P::DW + 1;");
  EXPECT_EQ(o.error, "");
  EXPECT_GT(o.scaled_error, 1e-3);
}

// Without the barrier after the multiply, the next tile's loads overwrite
// shared memory other threads still read: the alternating thread order of
// the emulation makes that change the result.
TEST(CudaEmulation, MissingBarrierIsCaught) {
  auto g = oneNode("MatMul", {{40, 70}, {70, 36}});
  const Outcome o = runBroken(*g, "acc[1][1] = fmaf(a1, b1, acc[1][1]);\n    }\n    __syncthreads();",
                              "acc[1][1] = fmaf(a1, b1, acc[1][1]);\n    }");
  EXPECT_EQ(o.error, "");
  EXPECT_GT(o.scaled_error, 1e-3);
}

TEST(CudaEmulation, DivergentBarrierIsReported) {
  auto g = oneNode("MatMul", {{40, 24}, {24, 36}});
  const Outcome o =
      runBroken(*g, "    __syncthreads();\n#pragma unroll 8", "    if (tid < 128) __syncthreads();\n#pragma unroll 8");
  EXPECT_NE(o.error.find("divergent __syncthreads"), std::string::npos) << o.error;
}

TEST(CudaEmulation, ShuffleWithAnExitedLaneIsReported) {
  auto g = oneNode("Softmax", {{3, 37}});
  const Outcome o = runBroken(*g, "if (line >= P::lines) return;", "if (line >= P::lines || lane == 31) return;");
  EXPECT_NE(o.error.find("lane 31 never reaches"), std::string::npos) << o.error;
}

// A device without a cubin of its architecture loads the PTX; one older than
// the PTX's virtual architecture is refused with the fix.
TEST(CudaEmulation, PtxPathAndArchitectureCheck) {
  auto g = oneNode("Softmax", {{3, 37}});
  const rt::Artifact a = compileCuda(*g, false);
  std::vector<rt::Tensor> inputs = {caseInput(*g->inputs()[0], 3)};
  const std::vector<rt::Tensor> want = runReference(*g, inputs);
  setenv("VDLA_CUDA_EMU_ARCH", "sm_100", 1);
  {
    rt::cuda::CudaSession session(a);
    EXPECT_EQ(session.loadedCode(), "ptx compute_90 (JIT)");
    expectClose(session.run(inputs), want, 1e-3, "ptx path");
  }
  setenv("VDLA_CUDA_EMU_ARCH", "sm_80", 1);
  try {
    rt::cuda::CudaSession session(a);
    ADD_FAILURE() << "an sm_80 device took compute_90 PTX";
  } catch (const rt::cuda::CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("recompile with --cuda-arch sm_80"), std::string::npos) << e.what();
  }
  unsetenv("VDLA_CUDA_EMU_ARCH");
  rt::cuda::CudaSession session(a);
  EXPECT_EQ(session.loadedCode(), "cubin sm_90");
}

// VDLA_CUDA_DRIVER: a missing library or entry point is named. Run in a fresh
// process (the runtime loads its driver once per process).
TEST(CudaEmulation, DriverLibraryProblemsNameTheLibrary) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("VDLA_CUDA_DRIVER", "/nonexistent/libcuda-test.so.1", 1);
        std::fprintf(stderr, "%s\n", rt::cuda::deviceProblem().c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "no CUDA driver found \\(/nonexistent/libcuda-test.so.1: .*VDLA_CUDA_DRIVER=");
  EXPECT_EXIT(
      {
        setenv("VDLA_CUDA_DRIVER", "libm.so.6", 1);
        std::fprintf(stderr, "%s\n", rt::cuda::deviceProblem().c_str());
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "the CUDA driver \\(libm.so.6\\) lacks cuInit");
}

}  // namespace
}  // namespace vdla::cuda::testing
