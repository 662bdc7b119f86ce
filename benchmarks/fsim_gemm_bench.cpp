// Benchmark: simulated MACs per second of fsim on a large blocked GEMM, against
// a plain C++ int8 GEMM of the same shape measured in the same run (the
// baseline), and against the selftest reference (checks the result too).
//
//   fsim_gemm_bench [--config pynq] [--m 256 --k 1024 --n 1024] [--repeat 3]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "vdla/hw/program_binary.h"
#include "vdla/selftest/blocked_gemm.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/fsim.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Baseline: row-major int8 GEMM with int32 accumulation, the loop a developer
// would write first (C[m][n] = sum_k A[m][k] * B[n][k]).
void plainGemm(const int8_t* a, const int8_t* b, int32_t* c, int M, int N, int K) {
  for (int m = 0; m < M; ++m)
    for (int n = 0; n < N; ++n) {
      int32_t sum = 0;
      for (int k = 0; k < K; ++k) sum += int32_t(a[m * K + k]) * int32_t(b[n * K + k]);
      c[m * N + n] = sum;
    }
}

}  // namespace

int main(int argc, char** argv) {
  std::string config = "pynq";
  int m = 256, k = 1024, n = 1024, repeat = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--config")
      config = argv[i + 1];
    else if (a == "--m")
      m = std::atoi(argv[i + 1]);
    else if (a == "--k")
      k = std::atoi(argv[i + 1]);
    else if (a == "--n")
      n = std::atoi(argv[i + 1]);
    else if (a == "--repeat")
      repeat = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: fsim_gemm_bench [--config C] [--m M --k K --n N] [--repeat R]\n");
      return 2;
    }
  }
  using namespace vdla;
  const hw::HwConfig cfg = hw::loadConfig(config);
  const selftest::GemmShape shape{uint32_t(m / cfg.batch), uint32_t(k / cfg.block_in), uint32_t(n / cfg.block_out)};
  const int M = int(shape.m_blocks * cfg.batch), K = int(shape.k_blocks * cfg.block_in),
            N = int(shape.n_blocks * cfg.block_out);
  const double macs = double(M) * N * K;
  std::printf("fsim GEMM benchmark: config %s, C[%d x %d] = A[%d x %d] * W[%d x %d]^T, %.3g MACs, best of %d\n",
              cfg.name.c_str(), M, N, M, K, N, K, macs, repeat);

  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::vector<int8_t> a(size_t(M) * K), w(size_t(N) * K);
  for (auto& v : a) v = int8_t(byte(rng));
  for (auto& v : w) v = int8_t(byte(rng));

  sim::Dram dram;
  selftest::GemmBuffers addr;
  addr.inp = dram.allocate(a.size());
  addr.wgt = dram.allocate(w.size());
  addr.out = dram.allocate(size_t(M) * N);
  std::memcpy(dram.map(addr.inp, a.size()), a.data(), a.size());
  std::memcpy(dram.map(addr.wgt, w.size()), w.data(), w.size());
  const selftest::GemmTiling tiling = selftest::chooseGemmTiling(cfg, shape, /*double_buffer=*/true);
  selftest::GemmProgram prog = selftest::buildBlockedGemm(cfg, shape, tiling, 8, addr);
  std::vector<uint8_t> uops = hw::encodeMicroOps(hw::IsaLayout(cfg), prog.uops);
  addr.uop = dram.allocate(uops.size());
  std::memcpy(dram.map(addr.uop, uops.size()), uops.data(), uops.size());
  prog = selftest::buildBlockedGemm(cfg, shape, tiling, 8, addr);
  std::vector<uint8_t> stream = hw::encodeInstructionStream(hw::IsaLayout(cfg), prog.instructions);
  const uint64_t insn_addr = dram.allocate(stream.size());
  std::memcpy(dram.map(insn_addr, stream.size()), stream.data(), stream.size());

  sim::FunctionalSimulator fsim(cfg, dram);
  double fsim_best = 1e30;
  sim::ExecutionStats stats;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = Clock::now();
    stats = fsim.run(insn_addr, uint32_t(prog.instructions.size()));
    fsim_best = std::min(fsim_best, seconds(t0, Clock::now()));
  }

  // The selftest reference works on the entry layout; it also confirms the run.
  std::vector<int8_t> expected = selftest::referenceBlockedGemm(cfg, shape, a, w, 8);
  const bool correct = std::memcmp(dram.map(addr.out, expected.size()), expected.data(), expected.size()) == 0;

  std::vector<int32_t> c(size_t(M) * N);
  double plain_best = 1e30;
  for (int r = 0; r < repeat; ++r) {
    auto t0 = Clock::now();
    plainGemm(a.data(), w.data(), c.data(), M, N, K);
    plain_best = std::min(plain_best, seconds(t0, Clock::now()));
  }

  std::printf("  tiling %ux%ux%u blocks, double-buffered, %zu instructions, %llu MACs simulated\n", tiling.tm,
              tiling.tn, tiling.tk, prog.instructions.size(), static_cast<unsigned long long>(stats.gemm_macs));
  std::printf("  fsim:             %8.3f s  %8.3f GMAC/s\n", fsim_best, macs / fsim_best / 1e9);
  std::printf("  plain C++ GEMM:   %8.3f s  %8.3f GMAC/s  (baseline)\n", plain_best, macs / plain_best / 1e9);
  std::printf("  fsim / baseline:  %8.2fx\n", plain_best / fsim_best);
  std::printf("  result matches the reference: %s\n", correct ? "yes" : "NO");
  return correct ? 0 : 1;
}
