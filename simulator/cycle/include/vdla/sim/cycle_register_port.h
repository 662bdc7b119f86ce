#pragma once
// The cycle-accurate simulator seen from its register interface: the
// Verilated RTL whose AXI-Lite slave (vdla_hw/rtl/vdla_ctrl_regs.sv) is the
// accelerator's real register block, with the clock advanced only when the
// caller says so. CycleSimulator runs whole programs; this port instead lets
// a caller act as the host of a board -- write INSN_ADDR/COUNT and START, poll
// CTRL, read the status registers -- and decide itself how time passes, e.g.
// to serve a driver's memory-mapped register window. Every read and write is a
// real AXI-Lite transaction, which takes a few clock cycles of its own.
//
// Calls may come from any thread; they are serialised with every other use of
// SystemC in the process.
#include <cstdint>
#include <memory>
#include <optional>

#include "vdla/hw/config.h"
#include "vdla/sim/cycle_sim.h"
#include "vdla/sim/dram.h"

namespace vdla::sim {

class CycleHarness;

class CycleRegisterPort {
 public:
  // The accelerator's AXI master is served from `dram` with `timing`
  // (default: defaultDramTiming(cfg)). Finds or builds `cfg`'s model, and
  // throws vdla::Error if it cannot, as CycleSimulator does. Starts out of
  // reset and idle.
  CycleRegisterPort(const hw::HwConfig& cfg, Dram& dram, std::optional<DramTiming> timing = std::nullopt);
  ~CycleRegisterPort();
  CycleRegisterPort(const CycleRegisterPort&) = delete;
  CycleRegisterPort& operator=(const CycleRegisterPort&) = delete;

  // One 32-bit AXI-Lite read or write at a byte offset of the register map
  // (vdla/hw/registers.h). Throws vdla::Error for an offset that is not a
  // 32-bit word of the 4 KiB window.
  uint32_t read(uint32_t offset);
  void write(uint32_t offset, uint32_t value);
  // Advances the clock by `cycles`.
  void step(uint64_t cycles);
  // Holds the accelerator in reset for a few cycles (a stopped or deadlocked
  // run is abandoned; on-chip memories keep their contents) and empties the
  // DRAM model's bursts in flight.
  void reset();
  // Clock cycles simulated since construction.
  uint64_t cycle() const;

  const hw::HwConfig& config() const { return cfg_; }

 private:
  CycleHarness& activeHarness();  // the harness, its simulation context made current

  hw::HwConfig cfg_;
  std::unique_ptr<CycleHarness> harness_;
};

}  // namespace vdla::sim
