#pragma once
// fsim: the functional, bit-exact golden model of the VDLA ISA.
//
// The load, compute and store modules are modelled as three in-order streams fed
// by a fetch unit through command queues of the configured depth, synchronised
// only by the four dependency-token queues (also of the configured depth): an
// instruction waits until every token it pops is available and every queue it
// pushes to has room, exactly as the hardware does. When no stream can make
// progress before the program ends, the run stops with a deadlock error that
// says which module waits on what. fsim runs whole networks, so the datapath is
// written for speed (see benchmarks/fsim_gemm_bench).
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/sim/dram.h"
#include "vdla/sim/execution_stats.h"

namespace vdla::sim {

class Datapath;

class FunctionalSimulator {
 public:
  FunctionalSimulator(const hw::HwConfig& cfg, Dram& dram);
  ~FunctionalSimulator();

  // Fetches `count` instructions from physical address `insn_addr` and runs
  // them. On-chip memories keep their contents between runs, as in hardware.
  // Throws vdla::Error naming the instruction index and the reason for any
  // decode error, out-of-bounds access, illegal token use or deadlock. If
  // `cancel` becomes true the run stops with an error at the next instruction.
  ExecutionStats run(uint64_t insn_addr, uint32_t count, const std::atomic<bool>* cancel = nullptr);

  // Runs an already decoded program (its LOAD/STORE addresses still refer to
  // the simulated DRAM).
  ExecutionStats run(const std::vector<hw::Instruction>& program, const std::atomic<bool>* cancel = nullptr);

  const hw::HwConfig& config() const { return cfg_; }

 private:
  hw::HwConfig cfg_;
  hw::IsaLayout layout_;
  Dram& dram_;
  std::unique_ptr<Datapath> datapath_;
};

// Checks the static rules of a program that do not depend on execution: a
// single FINISH as the last instruction, dependency flags that name an existing
// neighbour of the executing module, and STORE/LOAD pad rules. Throws
// vdla::Error naming the instruction index.
void checkProgramStructure(const std::vector<hw::Instruction>& program);

}  // namespace vdla::sim
