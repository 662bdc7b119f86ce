// ResNet-18 convolutions on the GPU: the CUDA backend's generated kernel
// against cuDNN with its fastest algorithm (cudnnFindConvolutionForwardAlgorithm),
// per layer at batch 1 and 16, their geometric mean, and the whole network.
//
//   cuda_conv_bench [--reps N] [--tf32] [--sweep]
//
// --sweep adds, per layer and batch, the time of every implicit-GEMM kernel
// variant of the backend (cuda::convKernelNames()), the data behind the
// per-layer kernel choice.
//
// Times are medians over N runs, measured with CUDA events around the kernel
// alone (no host transfers) on both sides. Both sides compute the plain
// convolution (no bias or activation). The whole-network line compares the
// generated network (every step, fused epilogues included) with the sum of
// cuDNN's fastest convolutions of the same layers, a lower bound for a cuDNN
// network. Without a GPU the program says so and exits with status 2.
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "vdla/compiler/compile.h"
#include "vdla/compiler/cuda/cuda_backend.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/runtime/cuda/cuda_session.h"
#include "vdla/runtime/executor.h"

namespace {

using namespace vdla;

#define CHECK_CUDA(x)                                                                                 \
  do {                                                                                                \
    cudaError_t e_ = (x);                                                                             \
    if (e_ != cudaSuccess) throw std::runtime_error(std::string(#x) + ": " + cudaGetErrorString(e_)); \
  } while (0)
#define CHECK_CUDNN(x)                                                                                          \
  do {                                                                                                          \
    cudnnStatus_t s_ = (x);                                                                                     \
    if (s_ != CUDNN_STATUS_SUCCESS) throw std::runtime_error(std::string(#x) + ": " + cudnnGetErrorString(s_)); \
  } while (0)

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct ConvLayer {
  std::string name;
  int64_t c, h, w, m, k, stride, pad;
};

// The distinct convolutions of ResNet-18 after the standard pipeline.
std::vector<ConvLayer> resnet18Convs() {
  auto g = zoo::buildModel("resnet18");
  runStandardPipeline(*g, PipelineOptions{});
  std::vector<ConvLayer> layers;
  for (const ir::Node* n : g->nodes()) {
    if (n->op() != "Conv") continue;
    const rt::Shape& x = n->input(0)->type().shape;
    const rt::Shape& w = n->input(1)->type().shape;
    ConvLayer l{n->name(),
                x[1],
                x[2],
                x[3],
                w[0],
                w[2],
                n->attrs().getInts("strides", {1, 1})[0],
                n->attrs().getInts("pads", {0, 0, 0, 0})[0]};
    bool seen = false;
    for (const ConvLayer& o : layers)
      seen |=
          o.c == l.c && o.h == l.h && o.w == l.w && o.m == l.m && o.k == l.k && o.stride == l.stride && o.pad == l.pad;
    if (!seen) layers.push_back(l);
  }
  return layers;
}

std::unique_ptr<ir::Graph> convGraph(const ConvLayer& l, int64_t batch) {
  auto g = std::make_unique<ir::Graph>();
  g->name = l.name;
  ir::Value* x = g->addInput("x", rt::TensorType{rt::DType::F32, {batch, l.c, l.h, l.w}, rt::Layout::RowMajor});
  rt::Tensor w(rt::DType::F32, {l.m, l.c, l.k, l.k});
  for (int64_t i = 0; i < w.numElements(); ++i) w.data<float>()[i] = static_cast<float>((i * 7919) % 13) / 13.0f - 0.5f;
  rt::AttributeMap a;
  a.set("strides", std::vector<int64_t>{l.stride, l.stride});
  a.set("pads", std::vector<int64_t>{l.pad, l.pad, l.pad, l.pad});
  ir::Node* n = g->addNode("Conv", {x, g->addConstant("w", w)}, 1, a, l.name);
  g->addOutput(n->output(0));
  return g;
}

double ourSeconds(ir::Graph& g, bool tf32, int reps, bool whole_network = false, const std::string& kernel = "") {
  CompileOptions o;
  o.target = "cuda";
  o.optimize = whole_network;
  o.cuda.tf32_tensor_cores = tf32;
  o.cuda.conv_kernel = kernel;
  if (!whole_network) passes::inferShapes(g);
  rt::ExecutorOptions eo;
  eo.profile = true;
  rt::Executor ex(compileGraph(g, o), eo);
  std::vector<rt::Tensor> in;
  for (size_t i = 0; i < ex.numInputs(); ++i) in.emplace_back(ex.input(i).type);
  ex.run(in);  // warm-up (module load, first-touch)
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    ex.run(in);
    double s = 0;
    for (const auto& p : ex.profile()) s += p.seconds;
    t.push_back(s);
  }
  return median(t);
}

double cudnnSeconds(cudnnHandle_t h, const ConvLayer& l, int64_t batch, bool tf32, int reps) {
  const int oh = static_cast<int>((l.h + 2 * l.pad - l.k) / l.stride + 1),
            ow = static_cast<int>((l.w + 2 * l.pad - l.k) / l.stride + 1);
  cudnnTensorDescriptor_t xd, yd;
  cudnnFilterDescriptor_t wd;
  cudnnConvolutionDescriptor_t cd;
  CHECK_CUDNN(cudnnCreateTensorDescriptor(&xd));
  CHECK_CUDNN(cudnnCreateTensorDescriptor(&yd));
  CHECK_CUDNN(cudnnCreateFilterDescriptor(&wd));
  CHECK_CUDNN(cudnnCreateConvolutionDescriptor(&cd));
  CHECK_CUDNN(
      cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(batch), int(l.c), int(l.h), int(l.w)));
  CHECK_CUDNN(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(batch), int(l.m), oh, ow));
  CHECK_CUDNN(
      cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, int(l.m), int(l.c), int(l.k), int(l.k)));
  CHECK_CUDNN(cudnnSetConvolution2dDescriptor(cd, int(l.pad), int(l.pad), int(l.stride), int(l.stride), 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  // Plain fp32 unless TF32 is compared (cuDNN would otherwise use TF32 tensor cores on its own).
  CHECK_CUDNN(cudnnSetConvolutionMathType(cd, tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  float *x, *w, *y;
  CHECK_CUDA(cudaMalloc(&x, sizeof(float) * batch * l.c * l.h * l.w));
  CHECK_CUDA(cudaMalloc(&w, sizeof(float) * l.m * l.c * l.k * l.k));
  CHECK_CUDA(cudaMalloc(&y, sizeof(float) * batch * l.m * oh * ow));
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithm(h, xd, wd, cd, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
  size_t ws_bytes = 0;
  cudnnConvolutionFwdAlgo_t algo = perf[0].algo;
  CHECK_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws_bytes));
  void* ws = nullptr;
  if (ws_bytes) CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
  const float one = 1, zero = 0;
  cudaEvent_t a, b;
  CHECK_CUDA(cudaEventCreate(&a));
  CHECK_CUDA(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r <= reps; ++r) {
    CHECK_CUDA(cudaEventRecord(a));
    CHECK_CUDNN(cudnnConvolutionForward(h, &one, xd, x, wd, w, cd, algo, ws, ws_bytes, &zero, yd, y));
    CHECK_CUDA(cudaEventRecord(b));
    CHECK_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
    if (r) t.push_back(ms * 1e-3);  // the first run is a warm-up
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaFree(ws);
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  cudnnDestroyTensorDescriptor(xd);
  cudnnDestroyTensorDescriptor(yd);
  cudnnDestroyFilterDescriptor(wd);
  cudnnDestroyConvolutionDescriptor(cd);
  return median(t);
}

// Every kernel variant on every layer (ms), the fastest marked.
void sweepKernels(const std::vector<ConvLayer>& layers, bool tf32, int reps) {
  std::vector<std::string> kernels;
  for (const std::string& k : cuda::convKernelNames())
    if (tf32 || k.rfind("tf32", 0) != 0) kernels.push_back(k);
  for (int64_t batch : {1, 16}) {
    std::printf("\nkernel sweep, batch %lld (ms)\n%-24s", static_cast<long long>(batch), "layer");
    for (const std::string& k : kernels) std::printf(" %12s", k.c_str());
    std::printf("  fastest\n");
    for (const ConvLayer& l : layers) {
      std::printf("%-24s", l.name.c_str());
      double best = 1e30;
      std::string best_name;
      for (const std::string& k : kernels) {
        auto g = convGraph(l, batch);
        const double t = ourSeconds(*g, tf32, reps, false, k);
        std::printf(" %12.4f", t * 1e3);
        if (t < best) best = t, best_name = k;
      }
      std::printf("  %s\n", best_name.c_str());
      std::fflush(stdout);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 20;
  bool tf32 = false, sweep = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--tf32"))
      tf32 = true;
    else if (!std::strcmp(argv[i], "--sweep"))
      sweep = true;
    else {
      std::fprintf(stderr, "usage: cuda_conv_bench [--reps N] [--tf32] [--sweep]\n");
      return 2;
    }
  }
  const std::string problem = rt::cuda::deviceProblem();
  if (!problem.empty()) {
    std::fprintf(stderr, "cuda_conv_bench: no usable GPU: %s\n", problem.c_str());
    return 2;
  }
  try {
    cudnnHandle_t h;
    CHECK_CUDNN(cudnnCreate(&h));
    const std::vector<ConvLayer> layers = resnet18Convs();
    std::printf("ResNet-18 convolutions, %s, median of %d runs (ms); ratio = ours / cuDNN (below 1: faster)\n",
                tf32 ? "TF32 tensor cores on both sides" : "fp32 (no tensor cores) on both sides", reps);
    for (int64_t batch : {1, 16}) {
      double log_sum = 0, ours_total = 0, cudnn_total = 0;
      std::printf("\nbatch %lld\n%-28s %22s %10s %10s %7s\n", static_cast<long long>(batch), "layer", "C,HxW -> M, k/s",
                  "ours", "cuDNN", "ratio");
      for (const ConvLayer& l : layers) {
        auto g = convGraph(l, batch);
        const double ours = ourSeconds(*g, tf32, reps);
        const double ref = cudnnSeconds(h, l, batch, tf32, reps);
        log_sum += std::log(ours / ref);
        ours_total += ours;
        cudnn_total += ref;
        char shape[64];
        std::snprintf(shape, sizeof(shape), "%lld,%lldx%lld -> %lld, %lld/%lld", (long long)l.c, (long long)l.h,
                      (long long)l.w, (long long)l.m, (long long)l.k, (long long)l.stride);
        std::printf("%-28s %22s %10.4f %10.4f %7.2f\n", l.name.c_str(), shape, ours * 1e3, ref * 1e3, ours / ref);
      }
      std::printf("geometric mean ratio (batch %lld): %.3f\n", static_cast<long long>(batch),
                  std::exp(log_sum / layers.size()));
      zoo::ZooOptions zo;
      zo.batch = batch;
      auto net = zoo::buildModel("resnet18", zo);
      const double whole = ourSeconds(*net, tf32, reps, true);
      // Every conv layer of the network, not only the distinct ones, for the cuDNN bound.
      double cudnn_all = 0;
      auto g2 = zoo::buildModel("resnet18", zo);
      runStandardPipeline(*g2, PipelineOptions{});
      for (const ir::Node* n : g2->nodes())
        if (n->op() == "Conv")
          for (const ConvLayer& l : layers)
            if (l.c == n->input(0)->type().shape[1] && l.h == n->input(0)->type().shape[2] &&
                l.m == n->input(1)->type().shape[0] && l.k == n->input(1)->type().shape[2] &&
                l.stride == n->attrs().getInts("strides", {1, 1})[0]) {
              cudnn_all += cudnnSeconds(h, l, batch, tf32, std::max(3, reps / 4));
              break;
            }
      std::printf(
          "whole network (batch %lld): ours %.3f ms (all steps), cuDNN convolutions alone %.3f ms, ratio %.2f\n",
          static_cast<long long>(batch), whole * 1e3, cudnn_all * 1e3, whole / cudnn_all);
      (void)ours_total;
      (void)cudnn_total;
    }
    if (sweep) sweepKernels(layers, tf32, reps);
    cudnnDestroy(h);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuda_conv_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
