#pragma once
// ScHarness<Model, DataBits>: one Verilated model (SystemC flavour) wired to
// the CycleHarness. A single SC_METHOD drives the clock: at the falling edge it
// reads the model's outputs (settled after the rising edge), steps the DRAM
// and host models and writes the inputs for the next rising edge; at the
// rising edge it only flips the clock. Inputs are written only when they
// change, so an idle bus costs no signal updates.
#include <verilated.h>
#include <verilated_vcd_c.h>

#include <cstring>
#include <memory>

#include "harness.h"
#include "vdla/hw/error.h"

namespace vdla::sim {

// The SystemC type of a data port: uint64_t up to 64 bits, sc_bv above.
template <int Bits, bool Wide = (Bits > 64)>
struct AxiData {
  using Type = uint64_t;
  static void toBytes(const Type& v, uint8_t* b) { std::memcpy(b, &v, Bits / 8); }
  static Type fromBytes(const uint8_t* b) {
    Type v = 0;
    std::memcpy(&v, b, Bits / 8);
    return v;
  }
};
template <int Bits>
struct AxiData<Bits, true> {
  using Type = sc_dt::sc_bv<Bits>;
  static void toBytes(const Type& v, uint8_t* b) {
    for (int w = 0; w < Bits / 32; ++w) {
      uint32_t word = v.get_word(w);
      std::memcpy(b + 4 * w, &word, 4);
    }
  }
  static Type fromBytes(const uint8_t* b) {
    Type v;
    for (int w = 0; w < Bits / 32; ++w) {
      uint32_t word;
      std::memcpy(&word, b + 4 * w, 4);
      v.set_word(w, word);
    }
    return v;
  }
};

template <class Model, int DataBits>
class ScHarness : public CycleHarness {
  using Data = AxiData<DataBits>;

  struct Top : sc_core::sc_module {
    SC_HAS_PROCESS(Top);
    Top(sc_core::sc_module_name name, ScHarness* owner)
        : sc_core::sc_module(name), owner(owner), model("vdla") {
      model.clk(clk);
      model.rst(rst);
      model.axi_in(axi_in);
      model.axi_rdata(axi_rdata);
      model.axil_in(axil_in);
      model.axi_ar(axi_ar);
      model.axi_aw(axi_aw);
      model.axi_w(axi_w);
      model.axi_wdata(axi_wdata);
      model.axil_out(axil_out);
      model.trace_load(trace_load);
      model.trace_compute(trace_compute);
      model.trace_store(trace_store);
      SC_METHOD(tick);
    }

    void tick() {
      if (high) {
        owner->onFallingEdge(*this);
        clk.write(false);
      } else {
        clk.write(true);
        ++owner->cycle_;
      }
      high = !high;
      next_trigger(owner->half_period_);
    }

    ScHarness* owner;
    Model model;
    bool high = false;
    sc_core::sc_signal<bool> clk{"clk"}, rst{"rst", true};
    sc_core::sc_signal<uint32_t> axi_in{"axi_in"}, axi_w{"axi_w"};
    sc_core::sc_signal<uint32_t> trace_load{"trace_load"}, trace_compute{"trace_compute"}, trace_store{"trace_store"};
    sc_core::sc_signal<uint64_t> axil_in{"axil_in"}, axi_ar{"axi_ar"}, axi_aw{"axi_aw"}, axil_out{"axil_out"};
    sc_core::sc_signal<typename Data::Type> axi_rdata{"axi_rdata"}, axi_wdata{"axi_wdata"};
    // Last values written, to skip writes that change nothing.
    uint32_t last_axi = ~0u;
    uint64_t last_axil = ~uint64_t(0);
    bool last_rst = true;
  };

 public:
  ScHarness(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing)
      : CycleHarness(cfg, dram, timing), top_(new Top("top", this)) {}
  ~ScHarness() override {
    activate();
    closeWaves();
    top_.reset();
  }

  void openWaves(const std::string& path) override {
    closeWaves();
    Verilated::traceEverOn(true);
    vcd_ = std::make_unique<VerilatedVcdC>();
    top_->model.trace(vcd_.get(), 99);
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

  void onFallingEdge(Top& t) {
    uint8_t wdata[DataBits / 8];
    Outputs out;
    out.ar = t.axi_ar.read();
    out.aw = t.axi_aw.read();
    out.axil = t.axil_out.read();
    out.w = t.axi_w.read();
    if (out.w & 1) {
      Data::toBytes(t.axi_wdata.read(), wdata);
      out.wdata = wdata;
    }
    out.trace[0] = t.trace_load.read();
    out.trace[1] = t.trace_compute.read();
    out.trace[2] = t.trace_store.read();
    Inputs in;
    fallingEdge(out, in);
    if (in.axi != t.last_axi) {
      t.axi_in.write(in.axi);
      t.last_axi = in.axi;
    }
    if (in.axi & ports::kRValid) t.axi_rdata.write(Data::fromBytes(in.rdata));
    if (in.axil != t.last_axil) {
      t.axil_in.write(in.axil);
      t.last_axil = in.axil;
    }
    if (rst_ != t.last_rst) {
      t.rst.write(rst_);
      t.last_rst = rst_;
    }
  }

  std::unique_ptr<Top> top_;
  std::unique_ptr<VerilatedVcdC> vcd_;
};

}  // namespace vdla::sim
