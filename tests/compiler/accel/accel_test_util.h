// Shared by the accelerator back-end tests: random convolution layers, the
// vdla.QConv semantics restated naively in 64-bit arithmetic, and a runner
// that executes one generated program on a device.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "vdla/compiler/accel/conv_codegen.h"
#include "vdla/driver/device.h"
#include "vdla/runtime/tensor.h"

namespace vdla::accel::test {

// Inputs of one layer run.
struct LayerData {
  rt::Tensor x;  // int8 NCHW, before the host transform
  rt::Tensor r;  // int8 residual (empty without)
};

// A random layer (no host transform) small enough for every shipped config.
ConvLayer randomLayer(std::mt19937& rng, bool allow_residual = true);
// A random depthwise layer (group == c == o), its requantisation as
// randomLayer's: kernels up to 5 x `max_kw`, strides 1 to `max_stride`, any
// padding and pad value, channel counts that rarely fill the last block.
ConvLayer randomDepthwiseLayer(std::mt19937& rng, int64_t max_kw, int64_t max_stride = 2);
LayerData randomData(const ConvLayer& layer, std::mt19937& rng);
// Turns a random layer into onnxruntime's requantisation form (binary32
// scales in mult that map its accumulators onto about +-150, a zero point).
void floatRequantLike(ConvLayer& layer, std::mt19937& rng);

// vdla.QConv of a layer without host transform (zero padding), in 64-bit
// arithmetic wrapped to 32 bits where the definition wraps.
rt::Tensor naiveQConv(const ConvLayer& layer, const LayerData& data);

// Scalar constants (a quantised operator's scale and zero point).
rt::Tensor scalarF32(float v);
rt::Tensor scalarI8(int8_t v);

// A tensor the host packs (in channel blocks of `block`) into the arena at `offset`.
struct Upload {
  rt::Tensor tensor;
  int64_t block;
  int64_t offset;
};

// Runs a generated program on the device: uploads the constants and the
// packed inputs, runs, unpacks the output (entries of the program's y_block) of `y_shape`
// from the program's y_offset. Fills `stats` when given.
rt::Tensor runProgram(driver::Device& device, const ConvProgram& program, const std::vector<Upload>& uploads,
                      const rt::Shape& y_shape, sim::ExecutionStats* stats = nullptr);

// Fills the device's accumulators with random values (a program of one LOAD
// ACC): what a layer finds there on a board, after power-up or another
// program. A program must not depend on it.
void fillAccumulators(driver::Device& device, std::mt19937& rng);

// runProgram for a convolution layer's program and inputs.
rt::Tensor runOnDevice(driver::Device& device, const ConvLayer& layer, const ConvProgram& program,
                       const LayerData& data, sim::ExecutionStats* stats = nullptr);

}  // namespace vdla::accel::test
