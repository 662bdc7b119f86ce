// Training run for the profile-guided build of the cycle simulator
// (cmake/VdlaCycleSimPgo.cmake): runs random programs from progen on every
// built cycle model, linked against the instrumented copy of the library, so
// that the optimised library is compiled with the branch and call counts of
// real simulation. The programs are weighted towards GEMM, which dominates
// real workloads (ResNet layers keep the GEMM core busy most of the time), but
// include every instruction kind so that the transfer engines, the ALU and
// the host side are profiled too.
//
// Each result is compared with fsim, so that a broken model is reported at
// build time with the seed that shows it instead of being trained on.
//
//   vdla_cycle_sim_pgo_train [--cycles N]   (simulated cycles per config, default 300000)
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/sim/cycle_sim.h"
#include "vdla/sim/progen.h"
#include "vdla/sim/progen_fsim.h"

namespace {

using namespace vdla;
using namespace vdla::sim;

// Runs `program` on the cycle simulator and returns its simulated cycles;
// throws vdla::Error if a written buffer differs from fsim's.
uint64_t runAndCheck(CycleSimulator& cycle, FunctionalSimulator& fsim, Dram& dram, const hw::HwConfig& cfg,
                     const progen::RandomProgram& program) {
  const progen::FsimRun expected = progen::runOnFsim(fsim, dram, program);
  std::vector<uint64_t> addrs;
  for (const progen::ProgramBuffer& b : program.buffers) {
    addrs.push_back(dram.allocate(b.init.size()));
    if (!b.init.empty()) std::memcpy(dram.map(addrs.back(), b.init.size()), b.init.data(), b.init.size());
  }
  const std::vector<uint8_t> stream =
      hw::encodeInstructionStream(hw::IsaLayout(cfg), progen::relocate(cfg, program, addrs));
  const uint64_t insn_addr = dram.allocate(stream.size());
  std::memcpy(dram.map(insn_addr, stream.size()), stream.data(), stream.size());
  const ExecutionStats stats = cycle.run(insn_addr, uint32_t(program.instructions.size()));
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const std::vector<uint8_t>& want = expected.buffers[b];
    if (std::memcmp(dram.map(addrs[b], want.size()), want.data(), want.size()) != 0)
      throw Error("config " + cfg.name + ", progen seed " + std::to_string(program.seed) + ": buffer '" +
                  program.buffers[b].name + "' differs from fsim");
  }
  for (uint64_t a : addrs) dram.release(a);
  dram.release(insn_addr);
  return stats.cycles;
}

void train(const hw::HwConfig& cfg, uint64_t cycle_budget) {
  Dram dram;
  FunctionalSimulator fsim(cfg, dram);
  CycleSimulator cycle(cfg, dram);
  progen::ProgenOptions all;  // every instruction kind
  all.length = 60;
  all.size_scale = 2;
  progen::ProgenOptions gemm = all;  // loads, GEMM and stores only: the hot path of real layers
  gemm.ops = progen::kLoadUop | progen::kLoadWgt | progen::kLoadInp | progen::kLoadAcc | progen::kGemm |
             progen::kStore | progen::kAlu;
  gemm.alu_ops = 1u << unsigned(hw::AluOp::Add);
  gemm.size_scale = 4;
  uint64_t cycles = 0;
  int programs = 0;
  for (uint64_t seed = 1; cycles < cycle_budget; ++seed) {
    const progen::ProgenOptions& opts = seed % 4 == 0 ? all : gemm;
    cycles += runAndCheck(cycle, fsim, dram, cfg, progen::generateProgram(cfg, seed, opts));
    ++programs;
  }
  std::printf("pgo training: config %s, %d programs, %llu cycles\n", cfg.name.c_str(), programs,
              static_cast<unsigned long long>(cycles));
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t budget = 300000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cycles") == 0 && i + 1 < argc) {
      budget = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: vdla_cycle_sim_pgo_train [--cycles N]\n");
      return 2;
    }
  }
  try {
    for (const std::string& name : cycleSimConfigs()) train(hw::loadConfig(name), budget);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "vdla_cycle_sim_pgo_train: %s\n", e.what());
    return 1;
  }
  return 0;
}
