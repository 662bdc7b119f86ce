#pragma once
// The DRAM behind the accelerator's AXI master port, one clock cycle at a time:
// read bursts return data `read_latency` cycles after their address is taken,
// in order, at most one beat per cycle and `bytes_per_cycle` on average; write
// bursts take data for the oldest accepted address and respond
// `write_latency` cycles after their last beat. With `shared_bytes_per_cycle`
// the beats of both directions also share that budget (the DDR serves both;
// when it has room for only one of a waiting read and write beat, the read
// goes first, but a write beat loses at most eight such cycles in a row). At most `max_outstanding`
// bursts per direction are in flight. Backed by a vdla::sim::Dram; a burst
// outside every allocated buffer is answered with SLVERR and remembered, so the
// run can say which address and which burst.
#include <cstdint>
#include <deque>
#include <string>

#include "vdla/sim/cycle_sim.h"
#include "vdla/sim/dram.h"

namespace vdla::sim {

class AxiDram {
 public:
  AxiDram(Dram& dram, uint32_t bus_bytes, const DramTiming& timing);

  // What the accelerator drives this cycle (its registered outputs).
  struct Request {
    bool arvalid = false;
    uint32_t araddr = 0, arlen = 0, arsize = 0, arid = 0;
    bool awvalid = false;
    uint32_t awaddr = 0, awlen = 0;
    bool wvalid = false, wlast = false;
    const uint8_t* wdata = nullptr;  // bus_bytes
  };
  // What the DRAM drives this cycle. Handshakes complete at the next edge.
  struct Response {
    bool arready = false, awready = false, wready = false;
    bool rvalid = false, rlast = false, bvalid = false;
    uint32_t rid = 0, rresp = 0, bresp = 0;
    uint8_t rdata[64] = {};
  };

  void step(uint64_t cycle, const Request& req, Response& resp);
  void reset();
  bool idle() const { return reads_.empty() && writes_.empty() && responses_.empty(); }
  // The first out-of-range access since reset(), or "".
  const std::string& firstError() const { return first_error_; }
  void setTiming(const DramTiming& timing) { timing_ = timing; }

 private:
  struct Burst {
    uint64_t addr;
    uint32_t beats, beat = 0, size_log2, id;
    uint64_t ready_cycle;
    bool error;
  };
  bool checkRange(const char* what, uint64_t addr, uint32_t beats, uint32_t size_log2, uint32_t id);

  Dram& dram_;
  uint32_t bus_bytes_;
  DramTiming timing_;
  double read_credit_ = 0, write_credit_ = 0, shared_credit_ = 0;
  uint32_t write_waits_ = 0;  // contested cycles that writes lost since their last beat
  std::deque<Burst> reads_, writes_;
  std::deque<std::pair<uint64_t, uint32_t>> responses_;  // (ready cycle, bresp)
  std::string first_error_;
};

}  // namespace vdla::sim
