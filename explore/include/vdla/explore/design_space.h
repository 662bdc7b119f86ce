// A design space: the values each swept parameter may take, applied to a
// base configuration (which supplies the part and everything not swept).
// Written as JSON, e.g.
//   {"base": "zcu104",
//    "gemm": {"batch": [1], "block_in": [16, 32], "block_out": [16, 32, 64]},
//    "buffers_kib": {"input": [32, 64], "weight": [256, 512], "accumulator": [128, 256]},
//    "axi_bits": [64, 128], "clock_mhz": [200, 250, 300], "latency_hiding": [true, false],
//    "depthwise_taps": [0, 3], "acc_dual_read": [false, true],
//    "ultraram": [[], ["input", "accumulator", "output", "uop"]]}
// Every field is optional (a missing one keeps the base's value). The output
// buffer follows the accumulator (the ISA needs one entry per ACC entry).
// Without "depthwise_taps" each point keeps the base's DWGEMM window where its
// array can hold it (block_in at least block_out, one multiplier pair per
// tap: at most ceil(block_out / 2) taps) and goes without it elsewhere; listed values are
// applied as given (the validator refuses the ones a point cannot hold).
// The base's alu_bias_clear stays on wherever the ALU encoding has a bit left
// for its flag (deeper buffers widen the ALU's index fields) and is dropped
// elsewhere; likewise gemm_requant with the GEMM's bit for requant (and
// wherever alu_bias_clear goes, which it needs). Without "acc_dual_read"
// each point keeps the base's. The base's inp_writeback (STORE INP) goes
// where the point's INP and OUT entries have one width (block_in ==
// block_out) and is dropped elsewhere. Each "ultraram" value is a set of
// buffers (buffers_kib's names) that synthesis places in UltraRAM; without
// it each point keeps the base's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vdla/explore/design_point.h"
#include "vdla/hw/config.h"

namespace vdla::explore {

struct DesignSpace {
  std::string base = "pynq";  // shipped config name or JSON file
  std::vector<uint32_t> batch, block_in, block_out;
  std::vector<uint64_t> uop_kib, input_kib, weight_kib, acc_kib;
  std::vector<uint32_t> axi_bits;
  std::vector<double> clock_mhz;
  std::vector<bool> latency_hiding;
  std::vector<uint32_t> depthwise_taps;            // 0: without DWGEMM
  std::vector<bool> acc_dual_read;                 // the extension acc_dual_read off or on
  std::vector<std::vector<std::string>> ultraram;  // buffers placed in UltraRAM, per value
};

// Parses the JSON form; errors name `origin` and the field.
DesignSpace parseDesignSpace(const std::string& json_text, const std::string& origin);
// The JSON form (what parseDesignSpace reads).
std::string designSpaceToJson(const DesignSpace& space);

// A combination the config validator refused, with its reason.
struct RefusedPoint {
  std::string name;
  std::string reason;
};

// Every combination, as validated configurations named after their values
// ("b1-16x32-i64-w512-a256-u32-axi128-250mhz"). Combinations the validator
// refuses (an instruction field too wide for the encoding, ...) go to
// `refused` with the validator's message, never silently dropped.
std::vector<DesignPoint> enumerateDesignSpace(const DesignSpace& space, std::vector<RefusedPoint>* refused);

}  // namespace vdla::explore

namespace vdla::explore {

// Moves points whose clock is above `cap_mhz` to `refused`. The explorer caps
// the clock at what the vendor's DPU runs at on the part (FpgaPart::
// dpu_clock_mhz) unless told otherwise: a faster clock is an assumption a
// timing report must confirm, not a free variable.
void applyClockCap(std::vector<DesignPoint>& points, double cap_mhz, const std::string& why,
                   std::vector<RefusedPoint>* refused);

}  // namespace vdla::explore
