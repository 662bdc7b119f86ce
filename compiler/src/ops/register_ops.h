// Registration of the built-in operators, one function per operator family
// (one file each under src/ops/). OpRegistry::builtin() calls registerBuiltinOps.
#pragma once

#include "vdla/compiler/ir/op_registry.h"

namespace vdla::ir {

void registerElementwiseOps(OpRegistry& r);

inline void registerBuiltinOps(OpRegistry& r) { registerElementwiseOps(r); }

}  // namespace vdla::ir
