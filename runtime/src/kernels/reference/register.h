// One registration function per operator family, each in its own file.
#pragma once

#include "vdla/runtime/kernel_registry.h"

namespace vdla::rt::ref {

void registerElementwise(KernelRegistry& r);    // elementwise.cpp
void registerConv(KernelRegistry& r);           // conv.cpp
void registerMatMul(KernelRegistry& r);         // matmul.cpp
void registerPool(KernelRegistry& r);           // pool.cpp
void registerNormalization(KernelRegistry& r);  // normalization.cpp
void registerReduce(KernelRegistry& r);         // reduce.cpp
void registerTensorOps(KernelRegistry& r);      // tensor_ops.cpp
void registerSlice(KernelRegistry& r);          // slice.cpp
void registerSelection(KernelRegistry& r);      // selection.cpp
void registerQuantize(KernelRegistry& r);       // quantize.cpp
void registerVdla(KernelRegistry& r);           // vdla_qconv.cpp (the accelerator's own operators)

}  // namespace vdla::rt::ref
