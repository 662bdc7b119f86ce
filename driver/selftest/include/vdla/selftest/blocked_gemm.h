#pragma once
// A blocked int8 GEMM as a VDLA program: C = trunc8((A * W^T) >> shift), where A
// is (m_blocks*batch) x (k_blocks*block_in), W is (n_blocks*block_out) x
// (k_blocks*block_in), and the shift is an ALU instruction on the accumulators.
//
// The matrices are tiled to fit the on-chip buffers. With double buffering the
// program interleaves two virtual threads that use alternate halves of every
// buffer, so that loads of one tile overlap the compute and store of another;
// dependency tokens order every reuse of a buffer half.
#include <cstdint>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::selftest {

struct GemmShape {
  uint32_t m_blocks = 1, k_blocks = 1, n_blocks = 1;  // in units of batch, block_in, block_out
};

struct GemmTiling {
  uint32_t tm = 1, tn = 1, tk = 1;  // tile size in blocks
  bool double_buffer = false;
};

// Physical byte addresses of the four DRAM buffers the program uses.
struct GemmBuffers {
  uint64_t inp = 0, wgt = 0, out = 0, uop = 0;
};

struct GemmProgram {
  std::vector<hw::Instruction> instructions;
  std::vector<hw::Uop> uops;
};

// The tiling that moves the fewest DRAM bytes while fitting every buffer.
GemmTiling chooseGemmTiling(const hw::HwConfig& cfg, const GemmShape& shape, bool double_buffer);

// Throws vdla::Error if the tiling does not fit the config's buffers.
GemmProgram buildBlockedGemm(const hw::HwConfig& cfg, const GemmShape& shape, const GemmTiling& tiling, int shift,
                             const GemmBuffers& buffers);

// Plain reference. `a` and `w` are in DRAM entry layout (A: entry (m,k) at
// m*k_blocks+k, each [batch][block_in]; W: entry (n,k) at n*k_blocks+k, each
// [block_out][block_in]); the result is C in OUT entry layout (entry (m,n) at
// m*n_blocks+n, each [batch][block_out]).
std::vector<int8_t> referenceBlockedGemm(const hw::HwConfig& cfg, const GemmShape& shape, const std::vector<int8_t>& a,
                                         const std::vector<int8_t>& w, int shift);

}  // namespace vdla::selftest
