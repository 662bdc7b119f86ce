// Padding that stands for a nonzero value (an input zero point) while the DMA
// pads with zeros. An output whose window reaches into the padding then lacks
// pad_value times the weights of its padded taps; the program adds exactly
// that to the accumulator (an ALU ADD from a parameter vector, in wrapping
// 32-bit arithmetic like the accumulation itself), so the input goes to the
// device as it is and can stay there between layers.
//
// The outputs fall into classes by how many leading and trailing kernel rows
// (and columns) of their window lie in the padding; consecutive outputs with
// the same counts form a range. Each (row range, column range) pair other than
// the interior one has one correction vector over the output channels.
#pragma once

#include <cstdint>
#include <vector>

#include "vdla/compiler/accel/conv_layer.h"

namespace vdla::accel {

// Outputs [first, first + count) of one dimension whose windows have
// `before` leading and `after` trailing kernel taps in the padding.
struct BorderRange {
  int64_t first = 0, count = 0, before = 0, after = 0;
  bool interior() const { return before == 0 && after == 0; }
};

// The ranges of one dimension, in order, covering every output.
std::vector<BorderRange> borderRanges(int64_t outputs, int64_t inputs, int64_t kernel, int64_t stride,
                                      int64_t pad_begin);

struct BorderCorrection {
  BorderRange rows, cols;
  std::vector<int32_t> values;  // [o]: pad_value x the sum of the padded taps' weights, wrapped to int32
};

// Every correction the layer needs (none when pad_value is 0 or it has no
// padding); the interior is never among them.
std::vector<BorderCorrection> borderCorrections(const ConvLayer& layer);

}  // namespace vdla::accel
