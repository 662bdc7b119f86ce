// Runs a kernel's grid on the CPU: the blocks one after another, the threads
// of a block as fibers (fiber.h) switched at barriers and warp exchanges.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "emu_abi.h"

namespace vdla_emu {

struct GridLaunch {
  const VdlaEmuKernel* kernel;
  VdlaEmuThread** current;  // the kernel object's vdla_emu_current
  VdlaEmuDim grid, block;
  void** params;
  // Names the place an invalid address points to ("4 bytes past the end of
  // argument 1 (256 bytes)"), or "" when it is not a guard of the launch.
  std::function<std::string(uintptr_t)> describe_address;
};

// Runs every thread of every block. Returns "" on success, else what went
// wrong and where: a barrier or shuffle not every thread reaches (which would
// hang or misbehave on a GPU), a memory fault (an access out of bounds).
std::string runGrid(const GridLaunch& launch);

}  // namespace vdla_emu
