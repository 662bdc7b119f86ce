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
  // Where the runtime puts the packed input, residual and output in the arena.
  int64_t x_offset = 0, r_offset = 0, y_offset = 0, io_bytes = 0;
  TilePlan plan;
  CostEstimate estimate;
};

// `constants_offset` (a multiple of 4096) is where `constants` will start in
// the artifact's constant image.
ConvProgram generateConvProgram(const ConvLayer& layer, const TilePlan& plan, const hw::HwConfig& cfg,
                                uint64_t constants_offset);

// Packs [o][c][kh][kw] int8 weights into WGT entries laid out
// [oc block][ic block][kh][kw], each entry [block_out][block_in].
std::vector<uint8_t> packWeights(const ConvLayer& layer, const hw::HwConfig& cfg);

}  // namespace vdla::accel
