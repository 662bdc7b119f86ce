// The C simulation of one configuration (compiled once per config, inside the
// namespace VDLA_HLS_NS): the HLS modules, their memories and queues on the
// heap, driven through the register file and top_step().
#include <memory>

#include "vdla/hls/hls_csim.h"
#include "vdla_top.h"

namespace VDLA_HLS_NS {
namespace {

class Window : public vdla_hls_host::DramWindow {
 public:
  explicit Window(vdla::hls::CsimDram& dram) : dram_(dram) {}
  uint8_t* map(uint64_t addr, uint64_t bytes) override { return dram_.map(addr, bytes); }

 private:
  vdla::hls::CsimDram& dram_;
};

// Everything the synthesis top keeps in static storage, per instance.
struct State {
  RegFile regs{};
  Control control{};
  hls::stream<Command> queues[3];
  uop_mem_t uop{};
  inp_mem_t inp{};
  wgt_mem_t wgt{};
  acc_mem_t acc{};
  out_mem_t out{};
};

class Csim : public vdla::hls::HlsCsim {
 public:
  explicit Csim(vdla::hls::CsimDram& dram) : window_(dram), state_(std::make_unique<State>()) {
    ports_.insn = dram_ptr<INSN_BITS>(&window_);
    ports_.uop = dram_ptr<UOP_BITS>(&window_);
    ports_.inp = dram_ptr<INP_WORD_BITS>(&window_);
    ports_.wgt = dram_ptr<WGT_WORD_BITS>(&window_);
    ports_.acc = dram_ptr<ACC_WORD_BITS>(&window_);
    ports_.acc8 = dram_ptr<ACC8_WORD_BITS>(&window_);
    ports_.out = dram_ptr<OUT_WORD_BITS>(&window_);
  }
  uint32_t readRegister(uint32_t offset) const override { return axil_read(state_->regs, offset); }
  void writeRegister(uint32_t offset, uint32_t value) override { axil_write(state_->regs, offset, value); }
  void reset() override {
    State& s = *state_;
    s.regs = RegFile{};
    s.control = Control{};
    for (auto& q : s.queues)
      while (!q.empty()) q.read();
  }
  Progress step(uint64_t rounds, const std::atomic<bool>* cancel) override {
    State& s = *state_;
    vdla_hls_host::cancelFlag() = cancel;
    try {
      for (uint64_t i = 0; i < rounds; ++i) {
        const bool changed = top_step(s.regs, s.control, s.queues, ports_, s.uop, s.inp, s.wgt, s.acc, s.out);
        if (!s.regs.running) return finish(Progress::Idle);
        if (!changed) return finish(Progress::Stuck);
      }
    } catch (const vdla_hls_host::Cancelled&) {
      return finish(Progress::Cancelled);
    }
    return finish(s.regs.running ? Progress::Running : Progress::Idle);
  }

 private:
  static Progress finish(Progress p) {
    vdla_hls_host::cancelFlag() = nullptr;
    return p;
  }

  Window window_;
  DramPorts ports_;
  std::unique_ptr<State> state_;
};

}  // namespace

std::unique_ptr<vdla::hls::HlsCsim> makeCsim(vdla::hls::CsimDram& dram) { return std::make_unique<Csim>(dram); }
uint64_t csimConfigHash() { return CONFIG_HASH; }

}  // namespace VDLA_HLS_NS
