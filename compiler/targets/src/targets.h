// The description of each target, one file each; target_registry.cpp puts
// them in the table.
#pragma once

#include "vdla/compiler/target.h"

namespace vdla::targets {

Target refTarget();
Target vdlaTarget();
Target llvmTarget();
Target cudaTarget();  // cuda_target.cpp, or cuda_target_absent.cpp in builds without CUDA

}  // namespace vdla::targets
