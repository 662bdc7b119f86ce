// Runs a generated program on a FunctionalSimulator with its own DRAM.
#include <cstring>

#include "vdla/hw/error.h"
#include "vdla/hw/isa_layout.h"
#include "vdla/hw/program_binary.h"
#include "vdla/sim/progen_fsim.h"

namespace vdla::sim::progen {

FsimRun runOnFsim(FunctionalSimulator& fsim, Dram& dram, const RandomProgram& program) {
  const hw::HwConfig& cfg = fsim.config();
  std::vector<uint64_t> addrs;
  // Releases every buffer on the way out, also when the run throws.
  struct Release {
    Dram& dram;
    std::vector<uint64_t>& addrs;
    ~Release() {
      for (uint64_t a : addrs) dram.release(a);
    }
  } release{dram, addrs};
  for (const ProgramBuffer& b : program.buffers) {
    addrs.push_back(dram.allocate(b.init.size()));
    if (!b.init.empty()) std::memcpy(dram.map(addrs.back(), b.init.size()), b.init.data(), b.init.size());
  }
  const std::vector<uint8_t> stream =
      hw::encodeInstructionStream(hw::IsaLayout(cfg), relocate(cfg, program, {addrs.begin(), addrs.end()}));
  const uint64_t insn_addr = dram.allocate(stream.size());
  std::memcpy(dram.map(insn_addr, stream.size()), stream.data(), stream.size());
  addrs.push_back(insn_addr);

  FsimRun run;
  try {
    run.stats = fsim.run(insn_addr, uint32_t(program.instructions.size()));
  } catch (const Error& e) {
    throw Error("fsim on random program (seed " + std::to_string(program.seed) + ", config " + program.config_name +
                "): " + e.what());
  }
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    const uint64_t n = program.buffers[b].init.size();
    const uint8_t* p = dram.map(addrs[b], n);
    run.buffers.emplace_back(p, p + n);
  }
  return run;
}

}  // namespace vdla::sim::progen
