// Post-training int8 quantisation of an fp32 graph (after
// runStandardPipeline) for the VDLA accelerator.
//
//  * Activations: int8, symmetric per tensor (zero point 0, so convolution
//    padding is 0): scale = threshold / 127, the threshold from calibration.
//  * Weights: int8 symmetric per output channel ([-127, 127]); biases int32
//    in accumulator units.
//  * Conv (+ fused Relu/Clip) -> vdla.QConv. An Add (optionally + Relu) one of
//    whose operands comes from a Conv without activation and no other reader
//    is fused into that QConv as its residual R.
//  * Gemm or 2-D MatMul with constant weights (a dense layer) -> Reshape to
//    [N, K, 1, 1], 1x1 vdla.QConv, Reshape back to [N, O].
//  * MaxPool, Flatten, Reshape, Squeeze, Unsqueeze and Relu run on the int8
//    tensor with its scale unchanged; GlobalAveragePool becomes
//    com.microsoft.QLinearGlobalAveragePool (integer sum, one rounding).
//  * Every other operator runs in fp32 between DequantizeLinear and
//    QuantizeLinear. Graph inputs are quantised and f32 graph outputs
//    dequantised, so the graph keeps its interface (names, types, shapes).
#pragma once

#include <string>
#include <vector>

#include "vdla/compiler/ir/graph.h"
#include "vdla/compiler/quant/calibration.h"

namespace vdla::quant {

// How a value's calibration statistics become its quantisation threshold.
enum class Threshold {
  MaxAbs,      // the largest |x| seen: nothing clips on the calibration data
  Percentile,  // TensorStats::percentile(QuantizeOptions::percentile)
};

struct QuantizeOptions {
  Threshold threshold = Threshold::MaxAbs;
  double percentile = 0.9999;  // fraction of |x| below the threshold, with Threshold::Percentile
  // Fuse residual Adds into the producing convolution; without it every Add
  // runs in fp32 between DequantizeLinear and QuantizeLinear.
  bool fuse_residual_add = true;
};

struct QuantizeReport {
  // Every fp32 value of the input graph that has an int8 counterpart in the
  // result: real value ~= int8 value * scale.
  struct QuantizedValue {
    std::string float_value;
    std::string int8_value;
    double scale = 0;
  };
  std::vector<QuantizedValue> values;
  // One entry per vdla.QConv created.
  struct Layer {
    std::string node;  // the vdla.QConv node
    int shift1 = 0, shift2 = 0;
    int mult_bits = 0;       // significant bits of the largest mult
    double error_bound = 0;  // RequantParams::error_bound
    bool residual = false;
  };
  std::vector<Layer> layers;
  // Nodes left in fp32 between DequantizeLinear and QuantizeLinear.
  std::vector<std::string> float_nodes;
};

// Rewrites `graph` in place into its int8 form. Every f32 value that is
// quantised must have statistics in `table` (by value name), taken on this
// same graph; throws std::invalid_argument naming the value otherwise. The
// result is verified and typed.
QuantizeReport quantizeGraph(ir::Graph& graph, const CalibrationTable& table, const QuantizeOptions& options = {});

}  // namespace vdla::quant
