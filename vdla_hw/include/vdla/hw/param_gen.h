#pragma once
// Emits the hardware parameters of a config for the two hardware descriptions:
// a C++ header for the HLS code and a SystemVerilog package for the RTL. Both
// carry the same values (dimensions, memory depths, index widths, every ISA
// field's bit position, the configuration hash), so the three implementations
// of the ISA can never disagree on a parameter.
#include <string>

#include "vdla/hw/config.h"

namespace vdla::hw {

std::string generateHlsHeader(const HwConfig& cfg, const std::string& source);
std::string generateSvPackage(const HwConfig& cfg, const std::string& source);

// The host interface's tables (registers, CTRL bits, error codes, module
// states, counters) in Markdown, as docs/hardware.md shows them.
std::string generateInterfaceDoc();

}  // namespace vdla::hw
