// The packed pair multiply of the GEMM core (vdla_hw/rtl/vdla_mul_pair_pkg.sv) in
// both of its forms -- the one the cycle simulator compiles (sign extension
// written as (v XOR 0x80) - 0x80) and the plain $signed one that synthesis
// sees -- against the two int8 products computed directly, for all 2^24
// operand triples: the low half must be x*w_lo + 2^15 and the high half
// x*w_hi + 2^15, both modulo 2^16.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "Vmul_pair_plain.h"
#include "Vmul_pair_xor.h"

namespace {

template <typename Model>
void checkAllOperands(const char* form) {
  Model m;
  long mismatches = 0;
  std::string first;
  for (int x = -128; x < 128; ++x) {
    for (int lo = -128; lo < 128; ++lo) {
      for (int hi = -128; hi < 128; ++hi) {
        m.x = static_cast<uint8_t>(x);
        m.w_lo = static_cast<uint8_t>(lo);
        m.w_hi = static_cast<uint8_t>(hi);
        m.eval();
        const auto want_lo = static_cast<uint16_t>(x * lo + 32768);
        const auto want_hi = static_cast<uint16_t>(x * hi + 32768);
        const auto got_lo = static_cast<uint16_t>(m.p & 0xffffu);
        const auto got_hi = static_cast<uint16_t>(m.p >> 16);
        if (got_lo != want_lo || got_hi != want_hi) {
          if (mismatches++ == 0)
            first = "x=" + std::to_string(x) + " w_lo=" + std::to_string(lo) + " w_hi=" + std::to_string(hi) +
                    ": got " + std::to_string(got_lo) + "/" + std::to_string(got_hi) + ", want " +
                    std::to_string(want_lo) + "/" + std::to_string(want_hi);
        }
      }
    }
  }
  EXPECT_EQ(mismatches, 0) << form << " form, first mismatch " << first;
}

TEST(MulPair, SimulatorFormMatchesProductsForAllOperands) { checkAllOperands<Vmul_pair_xor>("simulator"); }

TEST(MulPair, SynthesisFormMatchesProductsForAllOperands) { checkAllOperands<Vmul_pair_plain>("synthesis"); }

}  // namespace
