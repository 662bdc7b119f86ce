// The C++ side of benchmarks/python_overhead.py: loads an artifact file and
// runs it on its seeded synthetic input, printing the median seconds of one
// run over R rounds of N runs (after two warm-up runs) as JSON. The Python
// benchmark times the same artifact through the vdla package and reports the
// ratio, so both sides run the same code on the same input.
//
// usage: artifact_latency_bench ARTIFACT [--runs N] [--rounds R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vdla/compiler/synthetic_input.h"
#include "vdla/runtime/executor.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: artifact_latency_bench ARTIFACT [--runs N] [--rounds R]\n");
    return 2;
  }
  int runs = 20, rounds = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds"))
      rounds = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "artifact_latency_bench: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  try {
    vdla::rt::Executor executor(vdla::rt::loadArtifact(argv[1]));
    std::vector<vdla::rt::Tensor> inputs;
    for (size_t i = 0; i < executor.numInputs(); ++i)
      inputs.push_back(vdla::seededUniformInput(executor.input(i).type));
    for (int w = 0; w < 2; ++w) executor.run(inputs);
    std::vector<double> medians;
    for (int r = 0; r < rounds; ++r) {
      std::vector<double> t;
      for (int k = 0; k < runs; ++k) {
        const auto start = std::chrono::steady_clock::now();
        executor.run(inputs);
        t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      std::sort(t.begin(), t.end());
      medians.push_back(t[t.size() / 2]);
    }
    std::sort(medians.begin(), medians.end());
    std::printf("{\"median_seconds\": %.9f, \"runs\": %d, \"rounds\": %d}\n", medians[medians.size() / 2], runs,
                rounds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "artifact_latency_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
