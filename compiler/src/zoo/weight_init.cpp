#include "weight_init.h"

namespace vdla::zoo::detail {

namespace {

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Xoshiro256::Xoshiro256(uint64_t seed) {
  uint64_t state = seed;
  for (uint64_t& s : s_) s = splitmix64(state);
}

uint64_t Xoshiro256::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

Xoshiro256 streamFor(uint64_t seed, const std::string& tensor_name) {
  uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a 64
  for (unsigned char c : tensor_name) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  uint64_t state = seed;
  return Xoshiro256(splitmix64(state) ^ h);
}

void fillNormal(rt::Tensor& t, Xoshiro256& rng, double stddev) {
  // Four 16-bit uniforms (k + 1/2) / 2^16 per draw; their sum has mean 2 and
  // variance 1/3. Integer sums and one rounding per multiply keep it exact.
  const double scale = 1.7320508075688772 / 65536.0 * stddev;  // sqrt(3) / 2^16
  float* p = t.data<float>();
  const int64_t n = t.numElements();
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = rng.next();
    int64_t sum = static_cast<int64_t>((r & 0xffff) + ((r >> 16) & 0xffff) + ((r >> 32) & 0xffff) + (r >> 48));
    p[i] = static_cast<float>(static_cast<double>(sum - 131070) * scale);  // sum of (k + 1/2) - 2 * 2^16
  }
}

void fillUniform(rt::Tensor& t, Xoshiro256& rng, double lo, double hi) {
  const double width = hi - lo;
  float* p = t.data<float>();
  const int64_t n = t.numElements();
  for (int64_t i = 0; i < n; ++i) {
    double u = static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1), 53 bits
    p[i] = static_cast<float>(lo + u * width);
  }
}

}  // namespace vdla::zoo::detail
