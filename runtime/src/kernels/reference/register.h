// One registration function per operator family, each in its own file.
#pragma once

#include "vdla/runtime/kernel_registry.h"

namespace vdla::rt::ref {

void registerElementwise(KernelRegistry& r);

}  // namespace vdla::rt::ref
