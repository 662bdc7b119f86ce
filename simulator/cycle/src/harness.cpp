#include "harness.h"

#include <cstdlib>
#include <sstream>

#include "vdla/hw/registers.h"
#include "vdla/hw/error.h"

namespace vdla::sim {

std::recursive_mutex& systemcMutex() {
  static std::recursive_mutex m;
  return m;
}

namespace regs = hw::regs;

CycleHarness::CycleHarness(const hw::HwConfig& cfg, Dram& dram, const DramTiming& timing)
    : cfg_(cfg), bus_bytes_(cfg.axi_data_bits / 8), axi_(dram, cfg.axi_data_bits / 8, timing) {
  // The banner would end up in the middle of a tool's JSON output.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  context_ = new sc_core::sc_simcontext();
  activate();
  period_ = sc_core::sc_time(2, sc_core::SC_NS);
}

CycleHarness::~CycleHarness() {
  // The derived harness has destroyed its modules in this context already.
  if (sc_core::sc_curr_simcontext == context_) {
    sc_core::sc_curr_simcontext = nullptr;
    sc_core::sc_default_global_context = nullptr;
  }
  delete context_;
}

void CycleHarness::activate() {
  sc_core::sc_curr_simcontext = context_;
  sc_core::sc_default_global_context = context_;
}

void CycleHarness::runCycles(uint64_t cycles) {
  if (!cycles) return;
  run_until_ = cycle_ + cycles;
  sc_core::sc_start(period_ * double(cycles));
  if (!assertion_.empty()) {
    std::ostringstream msg;
    msg << "RTL assertion failed in cycle " << assertion_cycle_ << " (";
    static const char* const kModules[3] = {"load", "compute", "store"};
    for (int m = 0; m < 3; ++m) {
      const uint32_t t = assertion_trace_[m];
      msg << (m ? ", " : "") << kModules[m] << " " << regs::stateName(t >> 28);
      if ((t >> 28) != regs::kStIdle) msg << " at instruction " << (t & 0x0fffffffu);
    }
    msg << "): " << assertion_;
    assertion_.clear();
    // A clean accelerator for the next run, as after any failed run.
    reset();
    throw Error(msg.str());
  }
}

void CycleHarness::assertionFailed(const std::string& text) {
  if (rst_ || !assertion_.empty()) return;
  // The runtime prints "[time] %Error: file:line: Assertion failed in
  // <instance>: <message>" and then "%Error: file:line: Verilog $stop"; keep
  // the former, without the time (the cycle is reported instead).
  std::istringstream in(text);
  std::string line, kept;
  while (std::getline(in, line)) {
    if (line.find("Assertion failed") == std::string::npos) continue;
    const size_t error = line.find("%Error: ");
    if (error != std::string::npos) line = line.substr(error + 8);
    kept += (kept.empty() ? "" : "; ") + line;
  }
  assertion_ = kept.empty() ? (text.empty() ? "an assertion failed (no message)" : text) : kept;
  assertion_cycle_ = cycle_;
  for (int m = 0; m < 3; ++m) assertion_trace_[m] = last_trace_[m];
}

void CycleHarness::reset() {
  rst_ = true;
  host_op_ = HostOp::None;
  runCycles(4);
  axi_.reset();
  rst_ = false;
  runCycles(1);
}

void CycleHarness::runHostOp() {
  host_done_ = false;
  for (int tries = 0; tries < 1000 && !host_done_; ++tries) runCycles(1);
  if (!host_done_) throw Error("AXI-Lite transaction at 0x" + std::to_string(host_addr_) + " did not complete");
  host_op_ = HostOp::None;
}

void CycleHarness::axilWrite(uint32_t addr, uint32_t value) {
  host_op_ = HostOp::Write;
  host_addr_ = addr;
  host_data_ = value;
  runHostOp();
}

uint32_t CycleHarness::axilRead(uint32_t addr) {
  host_op_ = HostOp::Read;
  host_addr_ = addr;
  runHostOp();
  return host_data_;
}

uint64_t CycleHarness::readCounter(uint32_t index) {
  const uint32_t addr = regs::kCounters + 8 * index;
  const uint64_t lo = axilRead(addr);
  return lo | (uint64_t(axilRead(addr + 4)) << 32);
}

bool CycleHarness::fallingEdge(const Outputs& out, Inputs& in) {
  if (waves_on_) dumpWaves(cycle_);
  for (int m = 0; m < 3; ++m) last_trace_[m] = out.trace[m];
  if (timeline_)
    for (int m = 0; m < 3; ++m) timeline_->sample(m, out.trace[m], cycle_);

  // DRAM side
  AxiDram::Request req;
  req.arvalid = out.ar & 1;
  req.arid = uint32_t(out.ar >> 1) & 3;
  req.arsize = uint32_t(out.ar >> 3) & 7;
  req.arlen = uint32_t(out.ar >> 6) & 0xff;
  req.araddr = uint32_t(out.ar >> 32);
  req.awvalid = out.aw & 1;
  req.awlen = uint32_t(out.aw >> 6) & 0xff;
  req.awaddr = uint32_t(out.aw >> 32);
  req.wvalid = out.w & 1;
  req.wlast = (out.w >> 1) & 1;
  req.wdata = out.wdata;
  if (rst_) req = AxiDram::Request{};
  axi_.step(cycle_, req, resp_);
  using namespace ports;
  uint32_t a = 0;
  if (resp_.arready) a |= kArReady;
  if (resp_.awready) a |= kAwReady;
  if (resp_.wready) a |= kWReady;
  if (resp_.rvalid) a |= kRValid | (resp_.rlast ? kRLast : 0) | (resp_.rid << kRIdShift) | (resp_.rresp << kRRespShift);
  if (resp_.bvalid) a |= kBValid | (resp_.bresp << kBRespShift);
  in.axi = a;
  in.rdata = resp_.rdata;

  // Host side: one AXI-Lite transaction; the RTL answers with bvalid/rvalid.
  uint64_t l = kLBReady | kLRReady;
  if (host_op_ != HostOp::None && !host_done_) {
    const uint64_t addr = uint64_t(host_addr_ & 0xfff) << kLAddrShift;
    if (host_op_ == HostOp::Write) {
      if (out.axil & kLBValid) {
        host_done_ = true;
      } else {
        l |= kLAwValid | kLWValid | addr | (uint64_t(host_data_) << kLDataShift);
      }
    } else {
      if (out.axil & kLRValid) {
        host_data_ = uint32_t(out.axil >> 32);
        host_done_ = true;
      } else {
        l |= kLArValid | addr;
      }
    }
    if (host_done_) {
      sc_core::sc_pause();
      in.axil = l;
      return true;
    }
  }
  in.axil = l;
  return false;
}

}  // namespace vdla::sim
