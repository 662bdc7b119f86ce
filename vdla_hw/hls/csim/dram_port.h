#pragma once
// Bounds-checked stand-in for an m_axi pointer in the C simulation.
//
// In synthesis a DRAM port is `ap_uint<W>*` with offset=off: index i is the
// W-bit word at byte address i * W/8 of the physical address space. Here the
// same indexing goes through a DramWindow, which resolves a physical range to
// host memory or refuses it; a refused access throws DramFault, which the
// C-simulation harness turns into the AXI response error that the hardware
// would raise (error code 16 read / 17 write). Only host code sees this file.
#include <atomic>
#include <cstdint>
#include <cstring>

#include <ap_int.h>

namespace vdla_hls_host {

class DramWindow {
 public:
  virtual ~DramWindow() = default;
  // Host pointer for [addr, addr+bytes), or nullptr if the range is not inside
  // one allocated buffer.
  virtual uint8_t* map(uint64_t addr, uint64_t bytes) = 0;
};

// Cancellation of a C-simulation run: the harness points this thread's flag
// at the device's cancel flag; the loop nests poll it once per outer
// iteration (VDLA_HLS_POLL_CANCEL, empty in synthesis) and throw Cancelled,
// so a timed-out run stops within one iteration as fsim's does.
struct Cancelled {};
inline const std::atomic<bool>*& cancelFlag() {
  thread_local const std::atomic<bool>* flag = nullptr;
  return flag;
}
inline void pollCancel() {
  const std::atomic<bool>* flag = cancelFlag();
  if (flag && flag->load(std::memory_order_relaxed)) throw Cancelled{};
}

struct DramFault {
  uint64_t addr;
  uint64_t bytes;
  bool write;
};

template <int W>
class DramPort {
  static_assert(W % 8 == 0, "DRAM words are whole bytes");
  static constexpr uint64_t kBytes = W / 8;

 public:
  class Ref {
   public:
    Ref(DramWindow* win, uint64_t index) : win_(win), index_(index) {}
    operator ap_uint<W>() const {  // NOLINT: reads like a pointer dereference
      const uint8_t* p = at(false);
      ap_uint<W> v;
      for (uint64_t c = 0; c < kBytes; c += 8) {
        uint64_t chunk = 0;
        std::memcpy(&chunk, p + c, kBytes - c < 8 ? kBytes - c : 8);  // little-endian host
        const int hi = int(c * 8 + (kBytes - c < 8 ? (kBytes - c) * 8 : 64)) - 1;
        v.range(hi, int(c * 8)) = chunk;
      }
      return v;
    }
    Ref& operator=(const ap_uint<W>& v) {
      uint8_t* p = at(true);
      for (uint64_t c = 0; c < kBytes; c += 8) {
        const uint64_t n = kBytes - c < 8 ? kBytes - c : 8;
        const uint64_t chunk = v.range(int(c * 8 + n * 8) - 1, int(c * 8)).to_uint64();
        std::memcpy(p + c, &chunk, n);
      }
      return *this;
    }

   private:
    uint8_t* at(bool write) const {
      uint8_t* p = win_ ? win_->map(index_ * kBytes, kBytes) : nullptr;
      if (!p) throw DramFault{index_ * kBytes, kBytes, write};
      return p;
    }
    DramWindow* win_;
    uint64_t index_;
  };

  DramPort() = default;
  explicit DramPort(DramWindow* win) : win_(win) {}
  Ref operator[](uint64_t index) const { return Ref(win_, index); }

 private:
  DramWindow* win_ = nullptr;
};

}  // namespace vdla_hls_host
