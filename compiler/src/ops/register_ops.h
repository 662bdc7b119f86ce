// Registration of the built-in operators, one function per operator family
// (one file each under src/ops/). OpRegistry::builtin() calls registerBuiltinOps.
#pragma once

#include "vdla/compiler/ir/op_registry.h"

namespace vdla::ir {

void registerElementwiseOps(OpRegistry& r);    // elementwise_ops.cpp
void registerConvOps(OpRegistry& r);           // conv_ops.cpp
void registerMatMulOps(OpRegistry& r);         // matmul_ops.cpp
void registerPoolOps(OpRegistry& r);           // pool_ops.cpp
void registerNormalizationOps(OpRegistry& r);  // normalization_ops.cpp
void registerReduceOps(OpRegistry& r);         // reduce_ops.cpp
void registerTensorOps(OpRegistry& r);         // tensor_ops.cpp
void registerSliceOps(OpRegistry& r);          // slice_ops.cpp
void registerSelectionOps(OpRegistry& r);      // selection_ops.cpp
void registerQuantizeOps(OpRegistry& r);       // quantize_ops.cpp
void registerVdlaOps(OpRegistry& r);           // vdla_ops.cpp

inline void registerBuiltinOps(OpRegistry& r) {
  registerElementwiseOps(r);
  registerConvOps(r);
  registerMatMulOps(r);
  registerPoolOps(r);
  registerNormalizationOps(r);
  registerReduceOps(r);
  registerTensorOps(r);
  registerSliceOps(r);
  registerSelectionOps(r);
  registerQuantizeOps(r);
  registerVdlaOps(r);
}

}  // namespace vdla::ir
