// The host-side ap_uint/hls::stream (vdla_hw/hls/host) against a plain bit
// vector: random slices of up to 64 bits written and read back at every
// alignment, for the widths the HLS code uses.
#include <gtest/gtest.h>

#include <bitset>
#include <random>

#include "ap_int.h"
#include "hls_stream.h"

namespace {

template <int W>
void checkRandomSlices(uint64_t seed) {
  std::mt19937_64 rng(seed);
  ap_uint<W> value;
  std::bitset<W> model;
  for (int step = 0; step < 2000; ++step) {
    const int width = 1 + int(rng() % uint64_t(W < 64 ? W : 64));
    const int lo = int(rng() % uint64_t(W - width + 1));
    const int hi = lo + width - 1;
    const uint64_t bits = rng();
    value.range(hi, lo) = bits;
    for (int b = 0; b < width; ++b) model[size_t(lo + b)] = (bits >> b) & 1;
    // Read back a different random slice and compare with the model.
    const int rwidth = 1 + int(rng() % uint64_t(W < 64 ? W : 64));
    const int rlo = int(rng() % uint64_t(W - rwidth + 1));
    uint64_t expected = 0;
    for (int b = 0; b < rwidth; ++b) expected |= uint64_t(model[size_t(rlo + b)]) << b;
    ASSERT_EQ(value.range(rlo + rwidth - 1, rlo).to_uint64(), expected)
        << "W=" << W << " step " << step << " slice [" << rlo + rwidth - 1 << ":" << rlo << "]";
  }
}

TEST(HostApUint, RandomSlicesMatchABitVector) {
  checkRandomSlices<32>(1);
  checkRandomSlices<64>(2);
  checkRandomSlices<128>(3);   // instructions
  checkRandomSlices<512>(4);   // accumulator entries
  checkRandomSlices<2048>(5);  // pynq weight entries
}

TEST(HostApUint, ConstructionTruncatesToTheWidth) {
  EXPECT_EQ(ap_uint<12>(0xffffu).to_uint64(), 0xfffu);
  EXPECT_EQ(ap_uint<64>(~uint64_t(0)).to_uint64(), ~uint64_t(0));
  ap_uint<128> wide;
  wide.range(127, 64) = 0x1234;
  wide.range(63, 0) = 0x5678;
  const ap_uint<64> narrow(wide);  // keeps the low bits, like the vendor type
  EXPECT_EQ(narrow.to_uint64(), 0x5678u);
  const ap_uint<256> zero_extended(wide);
  EXPECT_EQ(zero_extended.range(127, 64).to_uint64(), 0x1234u);
  EXPECT_EQ(zero_extended.range(191, 128).to_uint64(), 0u);
  EXPECT_EQ(ap_uint<8>(-1).to_uint64(), 0xffu);
}

TEST(HostApUint, SliceOutsideTheValueThrows) {
  ap_uint<32> v;
  EXPECT_THROW(v.range(32, 0), std::out_of_range);
  EXPECT_THROW(v.range(3, 4), std::out_of_range);
  ap_uint<256> w;
  EXPECT_THROW(w.range(100, 0), std::out_of_range);  // wider than 64 bits
}

TEST(HostStream, IsAFifoAndRefusesAnEmptyRead) {
  hls::stream<int> s("probe");
  EXPECT_TRUE(s.empty());
  for (int i = 0; i < 5; ++i) s.write(i);
  EXPECT_EQ(s.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.read(), i);
  int v = 7;
  EXPECT_FALSE(s.read_nb(v));
  EXPECT_EQ(v, 7);
  try {
    s.read();
    FAIL() << "reading an empty stream must throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("'probe'"), std::string::npos) << e.what();
  }
}

}  // namespace
