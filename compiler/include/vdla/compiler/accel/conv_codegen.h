// Code generation of one convolution for the accelerator: packed weights and
// parameter vectors, micro-op kernels, and the instruction stream of the
// three modules with their dependency tokens.
#pragma once

#include <cstdint>
#include <vector>

#include "vdla/compiler/accel/conv_layer.h"
#include "vdla/compiler/accel/tiling.h"
#include "vdla/hw/config.h"
#include "vdla/runtime/accel/device_program.h"

namespace vdla::accel {

struct ConvProgram {
  rt::accel::DeviceProgram program;
  // This layer's part of the constant image (weights, parameter vectors,
  // micro-ops); instructions address it at `constants_offset` given below.
  std::vector<uint8_t> constants;
  // Where the packed input, residual and output lie in the arena, and the
  // arena bytes the layer reaches.
  int64_t x_offset = 0, r_offset = 0, y_offset = 0, io_bytes = 0;
  // Channels per entry of the output and residual packing: block_out, or
  // block_in when the layer interleaves its output (outputInterleave).
  int64_t y_block = 0;
  TilePlan plan;
  CostEstimate estimate;
};

// Where a layer's packed input (block_in entries), residual and output
// (entries of its y_block channels) lie in the activation arena: byte offsets, multiples of
// kArenaAlign. The network's arena plan (arena_plan.h) gives every layer its
// own; a layer alone uses X | R | Y from offset 0.
constexpr uint64_t kArenaAlign = 4096;
struct ArenaPlacement {
  int64_t x_offset = 0, r_offset = 0, y_offset = 0;
};
ArenaPlacement standalonePlacement(const ConvLayer& layer, const hw::HwConfig& cfg);

// `constants_offset` (a multiple of 4096) is where `constants` will start in
// the artifact's constant image.
ConvProgram generateConvProgram(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                                uint64_t constants_offset, const ArenaPlacement& placement);
inline ConvProgram generateConvProgram(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                                       uint64_t constants_offset) {
  return generateConvProgram(layer, plan, cfg, constants_offset, standalonePlacement(layer, cfg));
}

// Packs [o][c][kh][kw] int8 weights into WGT entries laid out
// [oc block][ic block][kh][kw], each entry [block_out][block_in].
std::vector<uint8_t> packWeights(const ConvLayer& layer, const hw::HwConfig& cfg);

}  // namespace vdla::accel
