#pragma once
// The processor that runs the runtime on the boards the shipped configs
// target (the config's target.board): what the compiler weighs host work
// against accelerator cycles with, and what `vdla profile` turns the host's
// work per inference into board time with.
//
// The rates are instructions per byte of the runtime's own host work on that
// core, counted under qemu-user by benchmarks/board_host/board_host_work.py
// (docs/performance.md, "Board end-to-end estimate"); time assumes one
// instruction per cycle at the board's default CPU clock. They are estimates
// for planning, not measurements on a board.
#include <optional>
#include <string>

#include "vdla/hw/config.h"

namespace vdla::hw {

struct BoardHost {
  std::string board;  // as in the config: "pynq-z1"
  std::string core;   // "Cortex-A9"
  std::string cpu;    // the CPU back end's --cpu name of its code: "armv7"
  double clock_mhz = 0;
  double instructions_per_cycle = 1;
  // Instructions per byte: packing an input into the accelerator's layout,
  // with its transform if any (im2col, space-to-depth, padding: one pass),
  // per byte of the tensor placed; clearing and uploading the packed
  // buffer, per packed byte (channels past the tensor are zeros); unpacking
  // an output, per packed byte read; the CPU steps, per byte they write (the
  // networks' input quantisation and classifier reshapes, which is what
  // stays on the CPU).
  double pack_per_byte = 0, upload_per_byte = 0, unpack_per_byte = 0, cpu_step_per_byte = 0;
  // A column unfold's copies (InputTransform::unfold_columns), per byte
  // copied: runs of a few words from one pixel's channels on, not a
  // placement per byte.
  double unfold_per_byte = 0;
  // The runtime's own work per step (launching it, looking up its attributes).
  double per_step = 0;

  // Seconds for `instructions` on this core.
  double seconds(double instructions) const { return instructions / (instructions_per_cycle * clock_mhz * 1e6); }
};

// The host of the config's board; nullopt for a board without one on record.
std::optional<BoardHost> boardHost(const HwConfig& cfg);

}  // namespace vdla::hw
