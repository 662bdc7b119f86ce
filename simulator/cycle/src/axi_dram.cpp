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
constexpr uint32_t kMaxWriteWaits = 8;  // contested cycles a waiting write beat may lose in a row

}  // namespace

AxiDram::AxiDram(Dram& dram, uint32_t bus_bytes, const DramTiming& timing)
    : dram_(dram), bus_bytes_(bus_bytes), timing_(timing) {}

void AxiDram::reset() {
  reads_.clear();
  writes_.clear();
  responses_.clear();
  read_credit_ = write_credit_ = shared_credit_ = 0;
  write_waits_ = 0;
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

  // Who may move a beat this cycle. When the shared budget has room for only
  // one of a read and a write beat that both wait, the read goes first (the
  // accelerator's loads feed its compute; its stores have slack), except that
  // a write beat that lost kMaxWriteWaits such cycles since the last write
  // beat goes next, so that writes never starve when the budget is below a
  // beat a cycle. (At pynq's 11.2 bytes a cycle the budget left over by a
  // read stream moves a write beat every two or three cycles anyway.)
  const uint32_t read_beat_bytes = reads_.empty() ? 0 : 1u << reads_.front().size_log2;
  const bool read_wants = !reads_.empty() && reads_.front().ready_cycle <= cycle && read_credit_ >= read_beat_bytes;
  const bool write_wants = !writes_.empty() && write_credit_ >= bus_bytes_ && req.wvalid;
  bool read_may = read_wants && sharedAllows(read_beat_bytes);
  bool write_may = !writes_.empty() && write_credit_ >= bus_bytes_ && sharedAllows(bus_bytes_);
  if (shared && read_wants && write_wants && shared_credit_ < read_beat_bytes + bus_bytes_ &&
      shared_credit_ >= std::min(read_beat_bytes, bus_bytes_)) {
    if (write_waits_ >= kMaxWriteWaits) {
      read_may = false;
    } else {
      write_may = false;
      ++write_waits_;
    }
  }

  // R: the oldest burst whose latency has passed, one beat.
  resp.rvalid = false;
  if (!reads_.empty()) {
    Burst& b = reads_.front();
    const uint32_t beat_bytes = read_beat_bytes;
    if (read_may) {
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
  resp.wready = write_may && sharedAllows(bus_bytes_);
  if (req.wvalid && resp.wready) {
    write_credit_ -= bus_bytes_;
    if (shared) shared_credit_ -= bus_bytes_;
    write_waits_ = 0;
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
