#pragma once
// The SystemC top, split in two: CycleHarness (this file) holds everything
// that does not depend on which Verilated model is inside -- the DRAM/AXI
// model, the AXI-Lite host port, traces, the run loop primitives -- and
// ScHarness<Model> (sc_harness.h) wires one Verilated model to it.
//
// SystemC has one global simulation context and refuses new modules once a
// simulation has started, but every device needs its own model. So each
// harness owns an sc_simcontext and makes it current while it is used; all use
// of SystemC is serialised by systemcMutex().
#include <systemc>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "axi_dram.h"
#include "timeline_trace.h"
#include "vdla/hw/config.h"

namespace vdla::sim {

std::recursive_mutex& systemcMutex();

// Bit positions of the bundled ports of vdla_sim_top (simulator/cycle/rtl).
namespace ports {
constexpr uint32_t kArReady = 1u << 0, kAwReady = 1u << 1, kWReady = 1u << 2, kRValid = 1u << 3, kRLast = 1u << 4,
                   kRIdShift = 5, kRRespShift = 7, kBValid = 1u << 9, kBRespShift = 10;
constexpr uint64_t kLAwValid = 1u << 0, kLWValid = 1u << 1, kLBReady = 1u << 2, kLArValid = 1u << 3, kLRReady = 1u << 4,
                   kLAddrShift = 5, kLDataShift = 32;
constexpr uint64_t kLAwReady = 1u << 0, kLWReady = 1u << 1, kLBValid = 1u << 2, kLArReady = 1u << 3, kLRValid = 1u << 4;
}  // namespace ports

class CycleHarness {
 public:
  CycleHarness(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing);
  virtual ~CycleHarness();

  void activate();  // make this harness's simulation context current
  void reset();     // holds reset for a few cycles and empties the DRAM model
  void axilWrite(uint32_t addr, uint32_t value);
  uint32_t axilRead(uint32_t addr);
  uint64_t readCounter(uint32_t index);
  void runCycles(uint64_t cycles);
  uint64_t cycle() const { return cycle_; }

  AxiDram& axi() { return axi_; }
  void setTimeline(TimelineTrace* trace) { timeline_ = trace; }
  virtual void openWaves(const std::string& path) = 0;
  virtual void closeWaves() = 0;

 protected:
  // The model's outputs after a rising edge, and its inputs for the next one.
  struct Outputs {
    uint64_t ar = 0, aw = 0, axil = 0;
    uint32_t w = 0;
    const uint8_t* wdata = nullptr;
    uint32_t trace[3] = {0, 0, 0};
  };
  struct Inputs {
    uint32_t axi = 0;
    uint64_t axil = 0;
    const uint8_t* rdata = nullptr;
  };
  // Called by the clock process once per cycle, before the falling edge.
  // True when the host's AXI-Lite transaction completed (the simulation is
  // then paused at the end of this cycle).
  bool fallingEdge(const Outputs& out, Inputs& in);
  // Cycles left until the end of the current runCycles() (at least one).
  uint64_t cyclesLeft() const { return run_until_ > cycle_ ? run_until_ - cycle_ : 1; }
  virtual void dumpWaves(uint64_t time) = 0;
  // A checked model's failed assertion (`text`: what the Verilator runtime
  // printed) in the cycle just simulated. Ignored while reset is held (memories
  // without reset see random enables until the modules driving them are
  // reset); otherwise the first one stops the simulation, and runCycles()
  // throws it as a vdla::Error naming the cycle and each module's instruction.
  void assertionFailed(const std::string& text);
  bool assertionPending() const { return !assertion_.empty(); }

  const hw::HwConfig cfg_;
  const uint32_t bus_bytes_;
  sc_core::sc_simcontext* context_;
  sc_core::sc_time period_;  // one clock cycle
  bool rst_ = true;
  bool waves_on_ = false;
  uint64_t cycle_ = 0;
  uint64_t run_until_ = 0;  // the cycle at which the current runCycles() ends

 private:
  void runHostOp();

  AxiDram axi_;
  AxiDram::Response resp_;
  TimelineTrace* timeline_ = nullptr;
  // The one AXI-Lite transaction the host has in flight.
  enum class HostOp { None, Write, Read } host_op_ = HostOp::None;
  bool host_done_ = false;
  uint32_t host_addr_ = 0, host_data_ = 0;
  // The pending assertion failure, its cycle and the trace ports of that
  // cycle (state and instruction index of load, compute and store).
  std::string assertion_;
  uint64_t assertion_cycle_ = 0;
  uint32_t last_trace_[3] = {0, 0, 0};
  uint32_t assertion_trace_[3] = {0, 0, 0};
};

}  // namespace vdla::sim
