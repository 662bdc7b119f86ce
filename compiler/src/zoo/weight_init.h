// Portable, seeded weight generation for the model zoo. The generator
// (xoshiro256**, seeded through splitmix64) and every distribution are written
// out here, and the file is compiled without floating-point contraction, so a
// seed gives bit-identical weights on every compiler and machine.
#pragma once

#include <cstdint>
#include <string>

#include "vdla/runtime/tensor.h"

namespace vdla::zoo::detail {

class Xoshiro256 {
 public:
  explicit Xoshiro256(uint64_t seed);
  uint64_t next();

 private:
  uint64_t s_[4];
};

// The stream of one tensor: depends on the model seed and the tensor's name
// only, so adding a layer does not change the others' weights.
Xoshiro256 streamFor(uint64_t seed, const std::string& tensor_name);

// Approximately normal with mean 0 and the given standard deviation: the
// centred sum of four uniforms (Irwin-Hall), bounded by 3.46 std.
void fillNormal(rt::Tensor& t, Xoshiro256& rng, double stddev);
// Uniform in [lo, hi).
void fillUniform(rt::Tensor& t, Xoshiro256& rng, double lo, double hi);

}  // namespace vdla::zoo::detail
