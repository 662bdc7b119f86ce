// The accelerator's DRAM layout of int8 activations, and the host-side
// transforms applied while packing a layer's input.
//
// A logical NCHW int8 tensor is stored as [N/B][C/K][H][W][B][K]: B is the
// GEMM batch and K the channel block (block_in for inputs, block_out for
// outputs, or block_in for an output interleaved from G block_out entries
// per pixel), so one DRAM entry is one or G SRAM entries of the INP/OUT memory and a
// channel-block plane [H][W] is a 2-D region the DMA can load with spatial
// padding. Missing images and channels (N or C not a multiple) are zero.
#pragma once

#include <cstdint>
#include <vector>

#include "vdla/runtime/tensor.h"

namespace vdla::rt::accel {

struct PackedGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0;  // logical NCHW
  int64_t batch = 1, block = 1;        // B and K
  int64_t batchGroups() const { return (n + batch - 1) / batch; }
  int64_t channelBlocks() const { return (c + block - 1) / block; }
  int64_t entryBytes() const { return batch * block; }
  int64_t entries() const { return batchGroups() * channelBlocks() * h * w; }
  int64_t bytes() const { return entries() * entryBytes(); }
};

PackedGeometry packedGeometry(const Shape& nchw, int64_t batch, int64_t block);

// NCHW int8 -> packed bytes (`out` must hold geometry.bytes()).
void packActivation(const Tensor& x, const PackedGeometry& geometry, int8_t* out);
// Packed bytes -> NCHW int8 tensor of the geometry's logical shape.
void unpackActivation(const int8_t* packed, const PackedGeometry& geometry, Tensor& y);

// Host-side input transforms of a convolution whose input comes from the host:
// explicit padding with a nonzero zero point (the DMA pads with 0), and im2col
// for layers with few input channels (a 7x7 layer on 3 channels would use 3 of
// every 16 GEMM lanes; as a 1x1 layer over C*KH*KW channels it uses most).
struct InputTransform {
  // Explicit padding (top, left, bottom, right) with `pad_value`.
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int8_t pad_value = 0;
  // im2col: kernel and stride; channel (c*KH + ky)*KW + kx of the result at
  // (oy, ox) is the (padded) input at (oy*sh + ky, ox*sw + kx).
  bool im2col = false;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1;
  // Space-to-depth with block b (instead of im2col): channel (c*b + dy)*b + dx
  // of the result at (y, x) is the padded input at (y*b + dy, x*b + dx), rows
  // and columns past the padded input holding pad_value. A strided
  // convolution over few channels becomes a stride-1 one over b*b times as
  // many, and the input keeps its size (im2col multiplies it by KH*KW).
  int64_t space_to_depth = 1;
  // Column unfold u (after space-to-depth, not with im2col): channel j*C + c
  // of the result at (y, x) is channel c of the (padded, space-to-depth)
  // input at (y, x + j) for j < u, pad_value past its last column. A layer
  // over C channels, few against the GEMM's block_in, then reads u columns
  // of its kernel row in one input entry: a kernel row of KW taps becomes
  // ceil(KW/u) taps u columns apart. The packed input keeps its size where
  // u*C channels still fit one entry.
  int64_t unfold_columns = 1;
  bool identity() const {
    return !im2col && space_to_depth == 1 && unfold_columns == 1 && pad_top == 0 && pad_left == 0 && pad_bottom == 0 &&
           pad_right == 0;
  }
};

// The logical NCHW shape after the transform.
Shape transformedShape(const Shape& nchw, const InputTransform& t);
// Applies the transform (int8 NCHW in, int8 NCHW out).
Tensor applyInputTransform(const Tensor& x, const InputTransform& t);
// Of the transformed tensor's bytes, those packTransformedActivation copies
// from other entries rather than places one by one: a column unfold's
// channels past the first column's, where all of them fit one entry; 0
// otherwise.
int64_t unfoldCopiedBytes(const Shape& transformed, const InputTransform& t, int64_t block);
// Applies the transform and packs the result in one pass (`out` must hold
// the packed geometry of transformedShape(x, t) with `batch` and `block`).
void packTransformedActivation(const Tensor& x, const InputTransform& t, int64_t batch, int64_t block, int8_t* out);

}  // namespace vdla::rt::accel
