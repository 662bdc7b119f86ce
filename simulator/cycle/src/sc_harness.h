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
//
// Checks = void is the fast model. A checked model (model/CMakeLists.txt,
// VDLA_MODEL_CHECKS) passes a class whose static takeOutput() returns what
// the Verilator runtime printed; its harness owns a VerilatedContext seeded
// with x_seed (the random initial values of --x-initial unique) that does not
// abort on a failed assertion, and reports the failure through
// CycleHarness::assertionFailed() after the evaluation that raised it.
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
  if constexpr (std::is_integral_v<Port>)
    std::memcpy(bytes, &port, Bits / 8);
  else
    std::memcpy(bytes, port.data(), Bits / 8);
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

template <class Model, int DataBits, class Checks = void>
class ScHarness : public CycleHarness {
  struct Top : sc_core::sc_module {
    SC_HAS_PROCESS(Top);
    Top(sc_core::sc_module_name name, ScHarness* owner) : sc_core::sc_module(name), owner(owner) { SC_METHOD(tick); }
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
  static constexpr bool kChecked = !std::is_void_v<Checks>;

  ScHarness(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing, uint32_t x_seed = 0)
      : CycleHarness(cfg, dram, timing),
        vl_context_(makeContext(x_seed)),
        model_(makeModel()),
        top_(new Top("top", this)) {
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
    vl_context_.reset();
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

  // A checked model's own context: random initial values from `x_seed`
  // (randReset 2; a seed of 0 would make Verilator pick one from the clock),
  // and a failed assertion ($error, then Verilator's $stop) sets gotError
  // instead of aborting the process (fatalOnError false).
  static std::unique_ptr<VerilatedContext> makeContext(uint32_t x_seed) {
    if constexpr (!kChecked) {
      return nullptr;
    } else {
      if (x_seed == 0) throw Error("the checked cycle model needs an X seed of at least 1");
      auto context = std::make_unique<VerilatedContext>();
      context->randReset(2);
      context->randSeed(int(x_seed & 0x7fffffffu));
      context->fatalOnError(false);
      Checks::takeOutput();  // nothing printed before this model belongs to it
      return context;
    }
  }
  Model* makeModel() {
    if constexpr (!kChecked) {
      return new Model("vdla");
    } else {
      // The random values are drawn from the thread's context while the model
      // is constructed.
      Verilated::threadContextp(vl_context_.get());
      return new Model(vl_context_.get(), "vdla");
    }
  }
  // After an evaluation: a failed assertion of a checked model becomes the
  // harness's assertion failure (the first one of a run is kept).
  void afterEval() {
    if constexpr (kChecked) {
      if (!vl_context_->gotError()) return;
      vl_context_->gotError(false);
      vl_context_->gotFinish(false);
      assertionFailed(Checks::takeOutput());
    }
  }

  // One clock cycle; true when a host transaction completed in it.
  bool cycleStep() {
    Model& m = *model_;
    if constexpr (kChecked) Verilated::threadContextp(vl_context_.get());
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
    if constexpr (kChecked) {
      afterEval();
      // Stop at the failing cycle, as a completed host transaction does.
      if (assertionPending()) {
        sc_core::sc_pause();
        return true;
      }
    }
    return host_done;
  }

  std::unique_ptr<VerilatedContext> vl_context_;  // checked models only
  std::unique_ptr<Model> model_;
  std::unique_ptr<Top> top_;
  std::unique_ptr<VerilatedVcdC> vcd_;
};

}  // namespace vdla::sim
