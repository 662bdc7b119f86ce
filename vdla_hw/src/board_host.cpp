// The boards' host processors (board_host.h). Clocks: the boards' default CPU
// clocks (Pynq-Z1: 650 MHz; Ultra96-V2 and ZCU104: 1.2 GHz). Rates: from
// benchmarks/board_host/board_host_work.py on ResNet-18 and MobileNetV2
// (docs/performance.md): instructions of the transform-and-pack functions
// per byte of the tensor placed (armv7 5.3 to 6.8, aarch64 5.1 to 6.3), of
// clearing the packed buffer and copying it to the device per packed byte
// (0.55 and 0.15), of unpacking per packed byte read, of the generated CPU
// steps per byte written (the input's quantisation above all, a reciprocal
// multiplication in NEON: 5.5 on the Cortex-A9, 3.8 on the A53), and of the
// rest per step (4,000 to 5,000). A column unfold's copies: 1.0 per byte
// copied on the A53 (ResNet-18's stem on ultra96: 0.16 M instructions more
// than space-to-depth alone for 159 KB copied); on the A9 the copy loop
// (six word moves per 24-byte run, about 25 instructions with its spills)
// comes to about 2.
#include "vdla/hw/board_host.h"

namespace vdla::hw {

namespace {

BoardHost cortexA9(const std::string& board, double clock_mhz) {
  BoardHost h;
  h.board = board;
  h.core = "Cortex-A9";
  h.cpu = "armv7";
  h.clock_mhz = clock_mhz;
  h.pack_per_byte = 6.0;
  h.upload_per_byte = 0.55;
  h.unfold_per_byte = 2.0;
  h.unpack_per_byte = 6.5;
  h.cpu_step_per_byte = 5.5;
  h.per_step = 4800;
  return h;
}

BoardHost cortexA53(const std::string& board, double clock_mhz) {
  BoardHost h;
  h.board = board;
  h.core = "Cortex-A53";
  h.cpu = "aarch64";
  h.clock_mhz = clock_mhz;
  h.pack_per_byte = 5.4;
  h.upload_per_byte = 0.15;
  h.unfold_per_byte = 1.0;
  h.unpack_per_byte = 4.5;
  h.cpu_step_per_byte = 3.8;
  h.per_step = 4000;
  return h;
}

}  // namespace

std::optional<BoardHost> boardHost(const HwConfig& cfg) {
  if (cfg.board == "pynq-z1" || cfg.board == "pynq-z2") return cortexA9(cfg.board, 650);
  if (cfg.board == "ultra96-v2" || cfg.board == "zcu104") return cortexA53(cfg.board, 1200);
  return std::nullopt;
}

}  // namespace vdla::hw
