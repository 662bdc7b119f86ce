// Benchmark: simulated clock cycles per second of the cycle-accurate simulator
// (Verilated RTL in SystemC) on a GEMM-heavy blocked GEMM, with fsim's wall
// time on the same program in the same run as the baseline; checks the result
// against the selftest reference.
//
//   cycle_sim_bench [--config pynq] [--m 64 --k 512 --n 512] [--repeat 3] [--trace F] [--waves F]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "vdla/hw/program_binary.h"
#include "vdla/selftest/blocked_gemm.h"
#include "vdla/sim/cycle_sim.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/fsim.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

}  // namespace

int main(int argc, char** argv) {
  std::string config = "pynq", trace, waves;
  int m = 64, k = 512, n = 512, repeat = 3;
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
    else if (a == "--trace")
      trace = argv[i + 1];
    else if (a == "--waves")
      waves = argv[i + 1];
    else {
      std::fprintf(stderr,
                   "usage: cycle_sim_bench [--config C] [--m M --k K --n N] [--repeat R] [--trace F] [--waves F]\n");
      return 2;
    }
  }
  using namespace vdla;
  try {
    const hw::HwConfig cfg = hw::loadConfig(config);
    const selftest::GemmShape shape{uint32_t(m / cfg.batch), uint32_t(k / cfg.block_in), uint32_t(n / cfg.block_out)};
    const int M = int(shape.m_blocks * cfg.batch), K = int(shape.k_blocks * cfg.block_in),
              N = int(shape.n_blocks * cfg.block_out);
    std::printf("cycle simulator benchmark: config %s, C[%d x %d] = A[%d x %d] * W[%d x %d]^T, best of %d\n",
                cfg.name.c_str(), M, N, M, K, N, K, repeat);

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
    const uint32_t count = uint32_t(prog.instructions.size());
    const std::vector<int8_t> expected = selftest::referenceBlockedGemm(cfg, shape, a, w, 8);
    auto correct = [&] {
      return std::memcmp(dram.map(addr.out, expected.size()), expected.data(), expected.size()) == 0;
    };

    sim::FunctionalSimulator fsim(cfg, dram);
    double fsim_best = 1e30;
    for (int r = 0; r < repeat; ++r) {
      auto t0 = Clock::now();
      fsim.run(insn_addr, count);
      fsim_best = std::min(fsim_best, seconds(t0, Clock::now()));
    }
    const bool fsim_ok = correct();
    std::memset(dram.map(addr.out, expected.size()), 0, expected.size());

    sim::CycleSimOptions options;
    options.trace_path = trace;
    options.waves_path = waves;
    auto t_build = Clock::now();
    sim::CycleSimulator cycle(cfg, dram, options);
    const double setup = seconds(t_build, Clock::now());
    double best = 1e30;
    sim::ExecutionStats stats;
    for (int r = 0; r < repeat; ++r) {
      auto t0 = Clock::now();
      stats = cycle.run(insn_addr, count);
      best = std::min(best, seconds(t0, Clock::now()));
    }
    const bool cycle_ok = correct();

    std::printf("  tiling %ux%ux%u blocks, double-buffered, %u instructions\n", tiling.tm, tiling.tn, tiling.tk, count);
    std::printf("  simulated cycles:      %llu (GEMM utilisation %.1f%%)\n",
                static_cast<unsigned long long>(stats.cycles), 100.0 * stats.gemmUtilisation());
    std::printf("  cycle simulator:       %8.3f s  %8.3f M cycles/s  (model set-up %.3f s)\n", best,
                double(stats.cycles) / best / 1e6, setup);
    std::printf("  fsim:                  %8.3f s  (baseline)\n", fsim_best);
    std::printf("  cycle sim / fsim time: %8.1fx\n", best / fsim_best);
    std::printf("  results match the reference: fsim %s, cycle %s\n", fsim_ok ? "yes" : "NO", cycle_ok ? "yes" : "NO");
    return fsim_ok && cycle_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cycle_sim_bench: %s\n", e.what());
    return 1;
  }
}
