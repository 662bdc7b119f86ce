// Every distinct ResNet-18 convolution (fp32, batch 1, bias, no activation)
// compiled by the CPU back end (target "llvm", JIT) against oneDNN's
// convolution primitive with the layouts it prefers (format "any"; the
// reorders into and out of them are done once, outside the timing, as a
// network that stays in oneDNN's layout would), both with the same number of
// threads: median of N runs after two warm-up runs, the ratio, and the
// geometric mean of the ratios. The two outputs are also compared (oneDNN is
// an independent implementation), so a wrong kernel cannot look fast.
//
// usage: llvm_conv_layers_bench [--runs N] [--threads T]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <iostream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "vdla/compiler/llvm/cpu_backend.h"
#include "vdla/compiler/passes/shape_inference.h"
#include "vdla/runtime/executor.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Layer {
  const char* name;
  int64_t c, hw, o, k, stride, pad;
};

// torchvision's ResNet-18, one entry per distinct shape.
const Layer kLayers[] = {
    {"conv1 7x7/2", 3, 224, 64, 7, 2, 3},
    {"layer1 3x3", 64, 56, 64, 3, 1, 1},
    {"layer2.0.conv1 3x3/2", 64, 56, 128, 3, 2, 1},
    {"layer2.0.downsample 1x1/2", 64, 56, 128, 1, 2, 0},
    {"layer2 3x3", 128, 28, 128, 3, 1, 1},
    {"layer3.0.conv1 3x3/2", 128, 28, 256, 3, 2, 1},
    {"layer3.0.downsample 1x1/2", 128, 28, 256, 1, 2, 0},
    {"layer3 3x3", 256, 14, 256, 3, 1, 1},
    {"layer4.0.conv1 3x3/2", 256, 14, 512, 3, 2, 1},
    {"layer4.0.downsample 1x1/2", 256, 14, 512, 1, 2, 0},
    {"layer4 3x3", 512, 7, 512, 3, 1, 1},
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

// With --cold 1 each run starts as a layer inside a network does: its
// weights evicted by the rest of the network's (ResNet-18 has 47 MB; here
// 128 MB are streamed through), its input just written by the layer before.
struct Cache {
  bool cold = false;
  std::vector<float> junk;
  void prepare(const float* input, int64_t floats) {
    if (!cold) return;
    if (junk.empty()) junk.assign(32 << 20, 0.f);
    for (size_t i = 0; i < junk.size(); i += 16) junk[i] += 1.f;
    volatile float sink = 0;
    for (int64_t i = 0; i < floats; i += 16) sink = sink + input[i];
  }
};

template <typename F>
double medianMs(int runs, Cache& cache, const float* input, int64_t floats, F f) {
  f();
  f();
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    cache.prepare(input, floats);
    const auto t0 = Clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return median(ms);
}

vdla::rt::Tensor randomTensor(const vdla::rt::Shape& shape, std::mt19937& rng) {
  vdla::rt::Tensor t(vdla::rt::DType::F32, shape);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t i = 0; i < t.numElements(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

struct Result {
  double llvm_ms = 0, dnnl_ms = 0, max_rel_diff = 0;
};

Result benchLayer(const Layer& L, int runs, Cache& cache, dnnl::engine& eng, dnnl::stream& strm) {
  std::mt19937 rng(42);
  const int64_t oh = (L.hw + 2 * L.pad - L.k) / L.stride + 1;
  const vdla::rt::Tensor x = randomTensor({1, L.c, L.hw, L.hw}, rng);
  const vdla::rt::Tensor w = randomTensor({L.o, L.c, L.k, L.k}, rng);
  const vdla::rt::Tensor b = randomTensor({L.o}, rng);

  // The generated convolution.
  vdla::ir::Graph g;
  g.name = L.name;
  vdla::ir::Value* in = g.addInput("x", {vdla::rt::DType::F32, x.shape()});
  vdla::rt::AttributeMap a;
  a.set("strides", std::vector<int64_t>{L.stride, L.stride});
  a.set("dilations", std::vector<int64_t>{1, 1});
  a.set("pads", std::vector<int64_t>(4, L.pad));
  a.set("group", int64_t{1});
  vdla::ir::Value* y = g.addNode("Conv", {in, g.addConstant("w", w), g.addConstant("b", b)}, 1, a, "conv")->output();
  g.addOutput(y);
  vdla::passes::inferShapes(g);
  vdla::cpu::JitProgram program = vdla::cpu::compileJit(g);
  vdla::rt::Executor executor(program.artifact, *program.kernels);
  std::vector<vdla::rt::Tensor> ours;
  Result r;
  r.llvm_ms = medianMs(runs, cache, x.data<float>(), x.numElements(), [&] { ours = executor.run({x}); });

  // oneDNN with its preferred layouts.
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::dims src_d{1, L.c, L.hw, L.hw}, wei_d{L.o, L.c, L.k, L.k}, bias_d{L.o}, dst_d{1, L.o, oh, oh};
  const dnnl::memory::dims strides{L.stride, L.stride}, pads{L.pad, L.pad};
  const dnnl::convolution_forward::desc desc(
      dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, {src_d, dt::f32, tag::any},
      {wei_d, dt::f32, tag::any}, {bias_d, dt::f32, tag::x}, {dst_d, dt::f32, tag::any}, strides, pads, pads);
  const dnnl::convolution_forward::primitive_desc pd(desc, eng);
  auto user = [&](const dnnl::memory::dims& d, tag t, const float* data) {
    return dnnl::memory({d, dt::f32, t}, eng, const_cast<float*>(data));
  };
  auto reordered = [&](dnnl::memory from, const dnnl::memory::desc& want) {
    if (from.get_desc() == want) return from;
    dnnl::memory to(want, eng);
    dnnl::reorder(from, to).execute(strm, from, to);
    return to;
  };
  dnnl::memory src = reordered(user(src_d, tag::nchw, x.data<float>()), pd.src_desc());
  dnnl::memory wei = reordered(user(wei_d, tag::oihw, w.data<float>()), pd.weights_desc());
  dnnl::memory bias = user(bias_d, tag::x, b.data<float>());
  dnnl::memory dst(pd.dst_desc(), eng);
  dnnl::convolution_forward conv(pd);
  r.dnnl_ms = medianMs(runs, cache, static_cast<const float*>(src.get_data_handle()), x.numElements(), [&] {
    conv.execute(strm, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, dst}});
    strm.wait();
  });

  // Both outputs in NCHW, compared.
  std::vector<float> theirs(static_cast<size_t>(L.o * oh * oh));
  dnnl::memory plain({dst_d, dt::f32, tag::nchw}, eng, theirs.data());
  dnnl::reorder(dst, plain).execute(strm, dst, plain);
  strm.wait();
  const float* mine = ours.at(0).data<float>();
  float scale = 0;
  for (float v : theirs) scale = std::max(scale, std::fabs(v));
  for (size_t i = 0; i < theirs.size(); ++i)
    r.max_rel_diff = std::max(r.max_rel_diff, double(std::fabs(mine[i] - theirs[i]) / std::max(scale, 1e-6f)));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Cache cache;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], v = argv[i + 1];
    if (arg == "--runs")
      runs = std::atoi(v.c_str());
    else if (arg == "--threads")
      threads = std::atoi(v.c_str());
    else if (arg == "--cold")
      cache.cold = v == "1";
    else {
      std::cerr << "usage: llvm_conv_layers_bench [--runs N] [--threads T] [--cold 0|1]\n";
      return 2;
    }
  }
  if (argc % 2 == 0 || runs < 1 || threads < 1) {
    std::cerr << "usage: llvm_conv_layers_bench [--runs N >= 1] [--threads T >= 1] [--cold 0|1]\n";
    return 2;
  }
  setenv("VDLA_NUM_THREADS", std::to_string(threads).c_str(), 1);
  omp_set_num_threads(threads);  // oneDNN's runtime here is OpenMP
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream strm(eng);

  std::printf("ResNet-18 convolutions, fp32, batch 1, %d thread(s), median of %d runs%s; oneDNN %d.%d.%d\n", threads,
              runs, cache.cold ? ", weights not in the caches" : "", dnnl_version()->major, dnnl_version()->minor,
              dnnl_version()->patch);
  std::printf("%-28s %10s %10s %9s %12s\n", "layer", "llvm ms", "oneDNN ms", "llvm/dnnl", "max rel diff");
  double log_sum = 0;
  bool agree = true;
  for (const Layer& L : kLayers) {
    const Result r = benchLayer(L, runs, cache, eng, strm);
    const double ratio = r.llvm_ms / r.dnnl_ms;
    log_sum += std::log(ratio);
    agree = agree && r.max_rel_diff < 1e-4;
    std::printf("%-28s %10.3f %10.3f %8.2fx %12.2e\n", L.name, r.llvm_ms, r.dnnl_ms, ratio, r.max_rel_diff);
    std::fflush(stdout);
  }
  std::printf("geometric mean of llvm/oneDNN: %.2fx (below 1: the generated code is faster)\n",
              std::exp(log_sum / static_cast<double>(std::size(kLayers))));
  std::printf("outputs agree within 1e-4 of each output's largest magnitude: %s\n", agree ? "yes" : "NO");
  return agree ? 0 : 1;
}
