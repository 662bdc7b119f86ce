#include "axi_dram.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace vdla::sim {
namespace {

const char* readerName(uint32_t id) {
  switch (id) {
    case 0: return "fetch";
    case 1: return "load module";
    case 2: return "compute module";
    default: return "unknown master";
  }
}

constexpr uint32_t kSlvErr = 2;

}  // namespace

AxiDram::AxiDram(Dram& dram, uint32_t bus_bytes, const DramTiming& timing)
    : dram_(dram), bus_bytes_(bus_bytes), timing_(timing) {}

void AxiDram::reset() {
  reads_.clear();
  writes_.clear();
  responses_.clear();
  read_credit_ = write_credit_ = shared_credit_ = 0;
  first_error_.clear();
}

bool AxiDram::checkRange(const char* what, uint64_t addr, uint32_t beats, uint32_t size_log2, uint32_t id) {
  const uint64_t bytes = uint64_t(beats) << size_log2;
  if (dram_.map(addr, bytes)) return true;
  if (first_error_.empty()) {
    std::ostringstream msg;
    msg << "AXI " << what << " burst of " << beats << " beat(s) x " << (1u << size_log2) << " bytes at 0x" << std::hex
        << addr << " (bytes [0x" << addr << ", 0x" << addr + bytes << ")) from the " << std::dec
        << (std::strcmp(what, "write") == 0 ? "store module" : readerName(id))
        << " is not inside an allocated DRAM buffer";
    first_error_ = msg.str();
  }
  return false;
}

void AxiDram::step(uint64_t cycle, const Request& req, Response& resp) {
  const double cap = 2.0 * bus_bytes_;
  read_credit_ = std::min(cap, read_credit_ + timing_.bytes_per_cycle);
  write_credit_ = std::min(cap, write_credit_ + timing_.bytes_per_cycle);
  // The DDR behind the port: reads and writes draw on one budget as well.
  const bool shared = timing_.shared_bytes_per_cycle > 0;
  // It may hold a beat of each direction on top of a cycle's worth, so that
  // a fractional rate is not lost to the cap while both directions stream.
  if (shared)
    shared_credit_ = std::min(cap + timing_.shared_bytes_per_cycle, shared_credit_ + timing_.shared_bytes_per_cycle);
  auto sharedAllows = [&](uint32_t bytes) { return !shared || shared_credit_ >= bytes; };

  // R: the oldest burst whose latency has passed, one beat.
  resp.rvalid = false;
  if (!reads_.empty()) {
    Burst& b = reads_.front();
    const uint32_t beat_bytes = 1u << b.size_log2;
    if (b.ready_cycle <= cycle && read_credit_ >= beat_bytes && sharedAllows(beat_bytes)) {
      read_credit_ -= beat_bytes;
      if (shared) shared_credit_ -= beat_bytes;
      const uint64_t addr = b.addr + (uint64_t(b.beat) << b.size_log2);
      std::memset(resp.rdata, 0, bus_bytes_);
      if (!b.error) {
        // A narrow beat sits on the byte lanes of its address.
        std::memcpy(resp.rdata + (addr % bus_bytes_), dram_.map(addr, beat_bytes), beat_bytes);
      }
      resp.rvalid = true;
      resp.rid = b.id;
      resp.rresp = b.error ? kSlvErr : 0;
      resp.rlast = ++b.beat == b.beats;
      if (resp.rlast) reads_.pop_front();
    }
  }

  // AR
  resp.arready = reads_.size() < timing_.max_outstanding;
  if (req.arvalid && resp.arready) {
    Burst b{req.araddr, req.arlen + 1, 0, req.arsize, req.arid, cycle + timing_.read_latency, false};
    b.error = !checkRange("read", b.addr, b.beats, b.size_log2, b.id);
    reads_.push_back(b);
  }

  // W before AW: data always belongs to an address accepted at an earlier edge.
  resp.wready = !writes_.empty() && write_credit_ >= bus_bytes_ && sharedAllows(bus_bytes_);
  if (req.wvalid && resp.wready) {
    write_credit_ -= bus_bytes_;
    if (shared) shared_credit_ -= bus_bytes_;
    Burst& b = writes_.front();
    const uint64_t addr = b.addr + uint64_t(b.beat) * bus_bytes_;
    if (!b.error) std::memcpy(dram_.map(addr, bus_bytes_), req.wdata, bus_bytes_);
    if (++b.beat == b.beats || req.wlast) {
      responses_.push_back({cycle + timing_.write_latency, b.error ? kSlvErr : 0});
      writes_.pop_front();
    }
  }

  // AW
  resp.awready = writes_.size() + responses_.size() < timing_.max_outstanding;
  if (req.awvalid && resp.awready) {
    uint32_t size_log2 = 0;
    while ((1u << size_log2) < bus_bytes_) ++size_log2;
    Burst b{req.awaddr, req.awlen + 1, 0, size_log2, 0, 0, false};
    b.error = !checkRange("write", b.addr, b.beats, b.size_log2, 0);
    writes_.push_back(b);
  }

  // B
  resp.bvalid = false;
  if (!responses_.empty() && responses_.front().first <= cycle) {
    resp.bvalid = true;
    resp.bresp = responses_.front().second;
    responses_.pop_front();
  }
}

}  // namespace vdla::sim
