#pragma once
// ScHarness<Model, DataBits>: one Verilated model (plain C++ flavour) driven by
// the CycleHarness from a SystemC clock process. The model is not a SystemC
// module: its ports are plain members that the clock process reads and writes
// directly, so a clock cycle costs one process activation and two model
// evaluations, and no signal updates or delta cycles. (With SystemC ports,
// every port was an sc_signal and every clock edge a signal event that woke
// the model's own process; that bookkeeping was about 15% of the
// simulation's instructions.)
//
// Each cycle reads the outputs the model settled to after the previous rising
// edge, steps the DRAM and host models, writes the inputs, and evaluates the
// falling and then the rising edge. One activation of the clock process runs
// all the cycles of a runCycles() call (one activation per cycle made the
// whole simulation about 15% slower).
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cstring>
#include <memory>
#include <type_traits>

#include "harness.h"
#include "vdla/hw/error.h"

namespace vdla::sim {

// Copies between an AXI data port of the Verilated model (an integer up to 64
// bits, a VlWide array of 32-bit words above) and little-endian bytes.
template <int Bits, class Port>
void portToBytes(const Port& port, uint8_t* bytes) {
  if constexpr (std::is_integral_v<Port>) std::memcpy(bytes, &port, Bits / 8);
  else std::memcpy(bytes, port.data(), Bits / 8);
}
template <int Bits, class Port>
void bytesToPort(const uint8_t* bytes, Port& port) {
  if constexpr (std::is_integral_v<Port>) {
    port = 0;
    std::memcpy(&port, bytes, Bits / 8);
  } else {
    std::memcpy(port.data(), bytes, Bits / 8);
  }
}

template <class Model, int DataBits>
class ScHarness : public CycleHarness {
  struct Top : sc_core::sc_module {
    SC_HAS_PROCESS(Top);
    Top(sc_core::sc_module_name name, ScHarness* owner) : sc_core::sc_module(name), owner(owner) {
      SC_METHOD(tick);
    }
    // Runs every cycle left in the current runCycles() in one activation
    // (the DRAM and host models are plain C++ called from here, so nothing
    // else in SystemC needs to run between cycles), and sleeps for as many
    // periods as it ran, so that SystemC time stays cycle * period. A host
    // transaction that completes pauses the simulation after its cycle.
    void tick() {
      const uint64_t n = owner->cyclesLeft();
      uint64_t done = 0;
      while (done < n) {
        ++done;
        if (owner->cycleStep()) break;
      }
      next_trigger(owner->period_ * double(done));
    }
    ScHarness* owner;
  };

 public:
  ScHarness(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing)
      : CycleHarness(cfg, dram, timing), model_(new Model("vdla")), top_(new Top("top", this)) {
    // Clock high, so that the first cycle starts with a falling edge (the
    // wrapper registers the inputs there).
    model_->rst = 1;
    model_->clk = 1;
    model_->eval();
  }
  ~ScHarness() override {
    activate();
    closeWaves();
    top_.reset();
    model_->final();
    model_.reset();
  }

  void openWaves(const std::string& path) override {
    closeWaves();
    Verilated::traceEverOn(true);
    vcd_ = std::make_unique<VerilatedVcdC>();
    model_->trace(vcd_.get(), 99);
    vcd_->open(path.c_str());
    if (!vcd_->isOpen()) {
      vcd_.reset();
      throw Error("cannot open waveform file '" + path + "'");
    }
    waves_on_ = true;
  }
  void closeWaves() override {
    waves_on_ = false;
    if (vcd_) vcd_->close();
    vcd_.reset();
  }

 private:
  void dumpWaves(uint64_t time) override {
    if (vcd_) vcd_->dump(time);
  }

  // One clock cycle; true when a host transaction completed in it.
  bool cycleStep() {
    Model& m = *model_;
    uint8_t wdata[DataBits / 8];
    Outputs out;
    out.ar = m.axi_ar;
    out.aw = m.axi_aw;
    out.axil = m.axil_out;
    out.w = m.axi_w;
    if (out.w & 1) {
      portToBytes<DataBits>(m.axi_wdata, wdata);
      out.wdata = wdata;
    }
    out.trace[0] = m.trace_load;
    out.trace[1] = m.trace_compute;
    out.trace[2] = m.trace_store;
    Inputs in;
    const bool host_done = fallingEdge(out, in);
    m.axi_in = in.axi;
    if (in.axi & ports::kRValid) bytesToPort<DataBits>(in.rdata, m.axi_rdata);
    m.axil_in = in.axil;
    m.rst = rst_;
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
    ++cycle_;
    return host_done;
  }

  std::unique_ptr<Model> model_;
  std::unique_ptr<Top> top_;
  std::unique_ptr<VerilatedVcdC> vcd_;
};

}  // namespace vdla::sim
