#pragma once
// A small deterministic random source. std::uniform_int_distribution is not
// specified bit-for-bit across standard libraries, so a seed would name
// different programs on different toolchains; this one is (splitmix64).
#include <cstdint>

namespace vdla::sim::progen {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed ^ 0x5eed5eed5eed5eedull) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n); 0 for n == 0. The modulo bias is irrelevant here.
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  // Uniform in [lo, hi] (hi >= lo).
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo) + 1)); }
  bool chance(double p) { return double(next() >> 11) * (1.0 / 9007199254740992.0) < p; }
  // Mostly small: uniform in [1, max] with probability 1/4, else in [1, min(max, 4)].
  uint32_t smallSize(uint32_t max) {
    if (max <= 1) return 1;
    uint32_t cap = chance(0.25) ? max : (max < 4 ? max : 4);
    return uint32_t(range(1, cap));
  }

 private:
  uint64_t state_;
};

}  // namespace vdla::sim::progen
