#pragma once
// Host-side stand-in for the vendor's ap_int.h, used only when the Vitis HLS
// headers are absent (vdla_hw/hls/CMakeLists.txt puts this folder on the
// include path then). It implements the subset of ap_uint<W> that the VDLA HLS
// code uses -- construction from integers, range(hi, lo) reads and writes of at
// most 64 bits, to_uint64() -- with the vendor's semantics: unsigned, exactly
// W bits, bits above W dropped. Widths up to 4096 bits (a 128-bit instruction,
// a 512-bit accumulator entry) are stored as little-endian 64-bit words.
#include <cstdint>
#include <stdexcept>
#include <string>

#define VDLA_HLS_HOST_TYPES 1

template <int W>
class ap_uint;

namespace vdla_hls_host {

template <int W>
class RangeRef;

}  // namespace vdla_hls_host

template <int W>
class ap_uint {
  static_assert(W > 0 && W <= 4096, "ap_uint width must be in [1, 4096]");

 public:
  static constexpr int kWords = (W + 63) / 64;

  ap_uint() : w_{} {}
  ap_uint(uint64_t v) : w_{} {  // NOLINT: implicit like the vendor type
    w_[0] = v;
    clampTop();
  }
  ap_uint(int v) : ap_uint(uint64_t(int64_t(v))) {}  // NOLINT
  ap_uint(unsigned v) : ap_uint(uint64_t(v)) {}      // NOLINT
  ap_uint(bool v) : ap_uint(uint64_t(v)) {}          // NOLINT
  template <int W2>
  ap_uint(const ap_uint<W2>& o) : w_{} {  // NOLINT: width conversion, truncating or zero-extending
    for (int i = 0; i < kWords && i < ap_uint<W2>::kWords; ++i) w_[i] = o.word(i);
    clampTop();
  }

  // Bits [lo, hi] as an unsigned value; hi - lo < 64.
  uint64_t get(int hi, int lo) const {
    check(hi, lo);
    const int width = hi - lo + 1;
    uint64_t v = w_[lo / 64] >> (lo % 64);
    if (lo % 64 != 0 && lo / 64 + 1 < kWords) v |= w_[lo / 64 + 1] << (64 - lo % 64);
    return width == 64 ? v : v & ((uint64_t(1) << width) - 1);
  }
  void set(int hi, int lo, uint64_t value) {
    check(hi, lo);
    const int width = hi - lo + 1, shift = lo % 64, word = lo / 64;
    const uint64_t mask = width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
    value &= mask;
    w_[word] = (w_[word] & ~(mask << shift)) | (value << shift);
    if (shift != 0 && shift + width > 64 && word + 1 < kWords) {  // the slice straddles two words
      const uint64_t high_mask = (uint64_t(1) << (shift + width - 64)) - 1;
      w_[word + 1] = (w_[word + 1] & ~high_mask) | (value >> (64 - shift));
    }
  }

  vdla_hls_host::RangeRef<W> range(int hi, int lo) {
    check(hi, lo);
    return vdla_hls_host::RangeRef<W>(this, hi, lo);
  }
  const vdla_hls_host::RangeRef<W> range(int hi, int lo) const {
    check(hi, lo);
    return vdla_hls_host::RangeRef<W>(const_cast<ap_uint*>(this), hi, lo);
  }
  uint64_t to_uint64() const { return w_[0] & (W >= 64 ? ~uint64_t(0) : ((uint64_t(1) << W) - 1)); }
  unsigned to_uint() const { return unsigned(to_uint64()); }
  bool operator==(const ap_uint& o) const {
    for (int i = 0; i < kWords; ++i)
      if (w_[i] != o.w_[i]) return false;
    return true;
  }
  bool operator!=(const ap_uint& o) const { return !(*this == o); }

  uint64_t word(int i) const { return w_[i]; }

 private:
  static void check(int hi, int lo) {
    if (lo < 0 || hi < lo || hi >= W || hi - lo >= 64)
      throw std::out_of_range("ap_uint<" + std::to_string(W) + ">::range(" + std::to_string(hi) + ", " +
                              std::to_string(lo) + ") is outside the value or wider than 64 bits");
  }
  void clampTop() {
    if (W % 64 != 0) w_[kWords - 1] &= (uint64_t(1) << (W % 64)) - 1;
  }
  uint64_t w_[kWords];
};

namespace vdla_hls_host {

// What ap_uint::range() returns: reads as an integer, assignable like a slice.
template <int W>
class RangeRef {
 public:
  RangeRef(ap_uint<W>* v, int hi, int lo) : v_(v), hi_(hi), lo_(lo) {}
  uint64_t to_uint64() const { return v_->get(hi_, lo_); }
  unsigned to_uint() const { return unsigned(to_uint64()); }
  RangeRef& operator=(uint64_t value) {
    v_->set(hi_, lo_, value);
    return *this;
  }
  template <int W2>
  RangeRef& operator=(const ap_uint<W2>& value) {
    return *this = value.to_uint64();
  }

 private:
  ap_uint<W>* v_;
  int hi_, lo_;
};

}  // namespace vdla_hls_host
