// Batch-1 fp32 latency of the CPU back end (target "llvm", JIT) on ResNet-18
// and MobileNetV2 against PyTorch and onnxruntime running the torchvision
// models of the same architecture, with the same number of threads: median
// of R rounds of N runs (each after two warm-up runs; the generated code and
// onnxruntime take turns round by round, so that both see the same minutes
// of a shared machine), the ratio to each, and the compile time.
// PyTorch runs under /usr/bin/python3 (Debian's python3-torch), which also
// exports the model to ONNX for onnxruntime (the pip package in the python3
// on PATH); both through benchmarks/ort_torch_latency.py. A framework that
// is missing is reported and skipped.
//
// --profile 1 also prints every step's median time (op, output shape, share
// of the total) to show where the time goes, and the fastest run of each
// step (less disturbed by other processes on a shared machine); --compare 0 skips the
// frameworks (faster iterations while tuning the generated code); --library
// DIR also writes each model's code as a shared library DIR/<model>.so (for
// disassembly or perf annotate); --fuse 0 compiles the 1x1 and depthwise
// Convs of MobileNetV2's blocks as separate steps, for comparison; --trace
// PREFIX writes one more run of each model as PREFIX<model>.json, a
// Chrome/Perfetto trace (chrome://tracing, ui.perfetto.dev) of its steps
// and of every thread's share of each step's parallel loops, which shows
// where a thread waits for the other. --ab VAR=VALUE compiles each model a
// second time with that environment variable set (one of the back end's
// VDLA_LLVM_* switches) and runs the two programs in turns: the paired
// comparison that still shows a 2% difference when the machine's speed
// drifts by 20%.
//
// usage: llvm_latency_bench [--runs N] [--rounds R] [--threads T] [--size S]
//                           [--models resnet18,mobilenetv2] [--profile 0|1] [--compare 0|1]
//                           [--library DIR] [--fuse 0|1] [--trace PREFIX] [--ab VAR=VALUE]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "vdla/compiler/llvm/cpu_backend.h"
#include "vdla/compiler/pass_manager.h"
#include "vdla/compiler/zoo/model_zoo.h"
#include "vdla/runtime/executor.h"
#include "vdla/runtime/native/thread_pool.h"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct FrameworkTimes {
  double median_ms = -1, min_ms = -1;
  std::vector<double> times_ms;  // every timed run
};

// Runs a command and returns "median_ms" and "min_ms" from its last JSON
// line, or negative values (and prints why) when it failed.
FrameworkTimes frameworkTimes(const std::string& command, const std::string& what) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {};
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  const int status = pclose(pipe);
  const size_t line = out.rfind("{\"framework\"");
  if (status != 0 || line == std::string::npos) {
    std::cerr << what << " unavailable: " << out.substr(out.size() > 400 ? out.size() - 400 : 0) << "\n";
    return {};
  }
  const nlohmann::json j = nlohmann::json::parse(out.substr(line, out.find('\n', line) - line));
  return {j["median_ms"].get<double>(), j["min_ms"].get<double>(), j["times_ms"].get<std::vector<double>>()};
}

std::string ratio(double ours, double theirs) {
  if (theirs <= 0) return "n/a";
  char s[32];
  std::snprintf(s, sizeof(s), "%.2fx", ours / theirs);
  return s;
}

// Runs the model `runs` more times with step timing and prints each step's
// median and fastest time, slowest median first.
void printProfile(vdla::rt::Executor& executor, int runs, const vdla::rt::Tensor& x) {
  const vdla::rt::Artifact& a = executor.artifact();
  std::vector<std::vector<double>> times(a.steps.size());
  executor.setProfiling(true);
  for (int r = 0; r < runs; ++r) {
    executor.run({x});
    const std::vector<vdla::rt::StepProfile>& p = executor.profile();
    for (size_t i = 0; i < p.size() && i < times.size(); ++i) times[i].push_back(p[i].seconds * 1e3);
  }
  executor.setProfiling(false);
  std::vector<std::pair<double, size_t>> order;
  std::vector<double> fastest;
  double total = 0, fastest_total = 0;
  for (size_t i = 0; i < times.size(); ++i) {
    const double m = times[i].empty() ? 0 : median(times[i]);
    order.emplace_back(m, i);
    total += m;
    fastest.push_back(times[i].empty() ? 0 : *std::min_element(times[i].begin(), times[i].end()));
    fastest_total += fastest.back();
  }
  std::sort(order.rbegin(), order.rend());
  std::printf("  step medians, total %.2f ms (fastest runs: %.2f ms)\n", total, fastest_total);
  for (const auto& [m, i] : order) {
    const vdla::rt::ArtifactStep& s = a.steps[i];
    const vdla::rt::ArtifactTensor& in = a.tensors.at(s.inputs.at(0));
    const vdla::rt::ArtifactTensor& out = a.tensors.at(s.outputs.at(0));
    std::printf("  %8.3f ms %5.1f%% (min %6.3f)  %-18s %-20s -> %-20s %s\n", m, 100 * m / total, fastest[i],
                s.attrs.getString("op", "?").c_str(), vdla::rt::shapeToString(in.type.shape).c_str(),
                vdla::rt::shapeToString(out.type.shape).c_str(), s.name.c_str());
  }
}

// One more run with step timing and the thread pool's task spans, written
// as a Chrome trace: a track of steps, one track per thread.
void writeTrace(vdla::rt::Executor& executor, const vdla::rt::Tensor& x, const std::string& path) {
  vdla::rt::native::ThreadPool& pool = vdla::rt::native::ThreadPool::global();
  executor.setProfiling(true);
  pool.takeSpans();
  pool.setTracing(true);
  executor.run({x});
  pool.setTracing(false);
  executor.setProfiling(false);
  const std::vector<vdla::rt::StepProfile>& steps = executor.profile();
  const std::vector<vdla::rt::native::ThreadPool::TaskSpan> spans = pool.takeSpans();
  if (steps.empty()) return;
  const double origin = steps.front().start_seconds;
  auto us = [&](double seconds) { return (seconds - origin) * 1e6; };
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"ph", "M"}, {"pid", 1}, {"tid", 0}, {"name", "thread_name"}, {"args", {{"name", "steps"}}}});
  for (int t = 0; t < pool.numThreads(); ++t)
    events.push_back({{"ph", "M"},
                      {"pid", 1},
                      {"tid", t + 1},
                      {"name", "thread_name"},
                      {"args", {{"name", "thread " + std::to_string(t)}}}});
  for (const vdla::rt::StepProfile& s : steps)
    events.push_back({{"ph", "X"},
                      {"pid", 1},
                      {"tid", 0},
                      {"name", s.name},
                      {"ts", us(s.start_seconds)},
                      {"dur", s.seconds * 1e6},
                      {"args", {{"kernel", s.kernel}}}});
  // A span is named after the step it ran in (steps run one after the other).
  auto stepOf = [&](double seconds) -> std::string {
    for (const vdla::rt::StepProfile& s : steps)
      if (seconds >= s.start_seconds && seconds <= s.start_seconds + s.seconds) return s.name;
    return "?";
  };
  for (const auto& span : spans)
    events.push_back({{"ph", "X"},
                      {"pid", 1},
                      {"tid", span.thread + 1},
                      {"name", stepOf(span.start_seconds)},
                      {"ts", us(span.start_seconds)},
                      {"dur", (span.end_seconds - span.start_seconds) * 1e6},
                      {"args", {{"loop", span.loop}, {"begin", span.begin}, {"end", span.end}}}});
  std::ofstream out(path);
  out << nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() << "\n";
  if (!out)
    std::cerr << "cannot write " << path << "\n";
  else
    std::printf("  trace: %s (%zu steps, %zu task spans)\n", path.c_str(), steps.size(), spans.size());
}

// The network compiled a second time with the environment variable of
// `assignment` (VAR=VALUE) set, the two programs run in turns (which one
// goes first alternating), so that both see the same moments of a noisy
// machine: each one's median and fastest run, and the median of the paired
// ratios B/A.
void abCompare(vdla::rt::Executor& a, vdla::ir::Graph& g, const vdla::cpu::CpuCompileOptions& co,
               const std::vector<vdla::rt::Tensor>& inputs, const std::string& assignment, int runs) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos) {
    std::cerr << "--ab expects VAR=VALUE, got '" << assignment << "'\n";
    std::exit(2);
  }
  const std::string var = assignment.substr(0, eq);
  const char* old = std::getenv(var.c_str());
  const std::string saved = old ? old : "";
  setenv(var.c_str(), assignment.substr(eq + 1).c_str(), 1);
  vdla::cpu::JitProgram program = vdla::cpu::compileJit(g, co);
  if (old)
    setenv(var.c_str(), saved.c_str(), 1);
  else
    unsetenv(var.c_str());
  vdla::rt::Executor b(program.artifact, *program.kernels);
  b.run(inputs);
  b.run(inputs);
  std::vector<double> ta, tb, ratios;
  auto timed = [&](vdla::rt::Executor& e) {
    const Clock::time_point t = Clock::now();
    e.run(inputs);
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  for (int r = 0; r < runs; ++r) {
    double x, y;
    if (r % 2) {
      x = timed(a);
      y = timed(b);
    } else {
      y = timed(b);
      x = timed(a);
    }
    ta.push_back(x);
    tb.push_back(y);
    ratios.push_back(y / x);
  }
  std::printf("  A/B %s: A median %.3f min %.3f | B median %.3f min %.3f | median B/A %.3f\n", assignment.c_str(),
              median(ta), *std::min_element(ta.begin(), ta.end()), median(tb), *std::min_element(tb.begin(), tb.end()),
              median(ratios));
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 20, size = 224, rounds = 3;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> models = {"resnet18", "mobilenetv2"};
  bool profile = false, compare = true, fuse = true;
  std::string library_dir, trace_prefix, ab;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--runs")
      runs = std::atoi(v.c_str());
    else if (a == "--rounds")
      rounds = std::atoi(v.c_str());
    else if (a == "--threads")
      threads = std::atoi(v.c_str());
    else if (a == "--size")
      size = std::atoi(v.c_str());
    else if (a == "--profile")
      profile = std::atoi(v.c_str()) != 0;
    else if (a == "--compare")
      compare = std::atoi(v.c_str()) != 0;
    else if (a == "--library")
      library_dir = v;
    else if (a == "--trace")
      trace_prefix = v;
    else if (a == "--ab")
      ab = v;
    else if (a == "--fuse")
      fuse = std::atoi(v.c_str()) != 0;
    else if (a == "--models") {
      models.clear();
      std::stringstream ss(v);
      for (std::string m; std::getline(ss, m, ',');) models.push_back(m);
    } else {
      std::cerr << "usage: llvm_latency_bench [--runs N] [--rounds R] [--threads T] [--size S]"
                   " [--models resnet18,mobilenetv2] [--profile 0|1] [--compare 0|1] [--library DIR] [--fuse 0|1]"
                   " [--trace PREFIX] [--ab VAR=VALUE]\n";
      return 2;
    }
  }
  if (runs < 1 || rounds < 1 || threads < 1 || size < 32) {
    std::cerr << "llvm_latency_bench: --runs, --rounds and --threads must be >= 1, --size >= 32\n";
    return 2;
  }
  // The runtime's pool reads VDLA_NUM_THREADS when it is first used.
  setenv("VDLA_NUM_THREADS", std::to_string(threads).c_str(), 1);
  const std::string script = std::string(VDLA_SOURCE_DIR) + "/benchmarks/ort_torch_latency.py";
  std::printf("batch 1, %dx%d, fp32, %d thread(s), median of %d rounds x %d runs (each after 2 warm-up runs)\n", size,
              size, threads, rounds, runs);
  std::printf("%-12s %12s %12s %12s %10s %10s %12s\n", "model", "llvm ms", "ort ms", "torch ms", "llvm/ort",
              "llvm/torch", "compile s");
  for (const std::string& name : models) {
    vdla::zoo::ZooOptions zo;
    zo.image_size = size;
    std::unique_ptr<vdla::ir::Graph> g = vdla::zoo::buildModel(name, zo);
    const Clock::time_point t0 = Clock::now();
    vdla::runStandardPipeline(*g, vdla::PipelineOptions{});
    vdla::cpu::CpuCompileOptions co;
    co.fuse_expand_depthwise = co.fuse_depthwise_pointwise = fuse;
    vdla::cpu::JitProgram program = vdla::cpu::compileJit(*g, co);
    const double compile_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!library_dir.empty()) {
      const vdla::rt::Artifact shared = vdla::cpu::compileShared(*g, vdla::cpu::CpuTarget::host(), co);
      const std::vector<uint8_t>& so = shared.blobs.at("llvm.so");
      const std::string path = library_dir + "/" + name + ".so";
      FILE* f = std::fopen(path.c_str(), "wb");
      if (!f || std::fwrite(so.data(), 1, so.size(), f) != so.size()) std::cerr << "cannot write " << path << "\n";
      if (f) std::fclose(f);
    }
    vdla::rt::Executor executor(program.artifact, *program.kernels);
    vdla::rt::Tensor x(g->inputs()[0]->type());
    for (int64_t i = 0; i < x.numElements(); ++i)
      x.data<float>()[i] = static_cast<float>((i * 7919) % 255) / 128.0f - 1.0f;
    // The input vector is built once: run({x}) copied the 600 KB image
    // into a fresh allocation (page faults included) inside every timed run.
    const std::vector<vdla::rt::Tensor> inputs = {x};

    // PyTorch runs once (and exports the ONNX file); then, round after
    // round, N runs of the generated code and N of onnxruntime, so that a
    // slow or a quiet minute of a shared machine falls on both.
    char onnx[] = "/tmp/vdla-bench-XXXXXX";
    const int fd = mkstemp(onnx);
    if (fd >= 0) close(fd);
    const std::string common =
        " --runs " + std::to_string(runs) + " --threads " + std::to_string(threads) + " --size " + std::to_string(size);
    const FrameworkTimes torch =
        !compare
            ? FrameworkTimes{}
            : frameworkTimes("/usr/bin/python3 '" + script + "' torch --model " + name + " --export " + onnx + common,
                             "PyTorch");
    std::vector<double> ms, ort_times;
    for (int round = 0; round < rounds; ++round) {
      executor.run(inputs);  // warm-up: the other framework ran in between
      executor.run(inputs);
      for (int r = 0; r < runs; ++r) {
        const Clock::time_point t = Clock::now();
        executor.run(inputs);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
      }
      if (torch.median_ms <= 0) continue;
      const FrameworkTimes ort =
          frameworkTimes("python3 '" + script + "' ort --onnx " + std::string(onnx) + common, "onnxruntime");
      if (ort.median_ms <= 0) break;
      ort_times.insert(ort_times.end(), ort.times_ms.begin(), ort.times_ms.end());
    }
    std::remove(onnx);
    const double ours = median(ms);
    const double torch_ms = torch.median_ms, ort_ms = ort_times.empty() ? -1 : median(ort_times);
    const double ort_min_ms = ort_times.empty() ? -1 : *std::min_element(ort_times.begin(), ort_times.end());
    if (profile) printProfile(executor, runs, x);
    if (!trace_prefix.empty()) writeTrace(executor, x, trace_prefix + name + ".json");
    if (!ab.empty()) abCompare(executor, *g, co, inputs, ab, runs);
    auto fmt = [](double v) {
      char s[32];
      if (v <= 0) return std::string("n/a");
      std::snprintf(s, sizeof(s), "%.1f", v);
      return std::string(s);
    };
    std::printf("%-12s %12s %12s %12s %10s %10s %12.2f\n", name.c_str(), fmt(ours).c_str(), fmt(ort_ms).c_str(),
                fmt(torch_ms).c_str(), ratio(ours, ort_ms).c_str(), ratio(ours, torch_ms).c_str(), compile_s);
    // The fastest runs: on a machine shared with other work, the figure
    // least disturbed by it.
    const double fastest = *std::min_element(ms.begin(), ms.end());
    if (ort_min_ms > 0)
      std::printf("%-12s %12.2f %12.2f %12.2f %10s %10s   (fastest runs)\n", "", fastest, ort_min_ms, torch.min_ms,
                  ratio(fastest, ort_min_ms).c_str(), ratio(fastest, torch.min_ms).c_str());
    std::fflush(stdout);
  }
  return 0;
}
