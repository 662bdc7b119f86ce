// Static proof that a program cannot deadlock: an abstract run of the fetch
// unit and the three modules on dependency tokens alone (no data), with the
// configured command- and token-queue depths. The hardware's progress rules
// are monotone in tokens (an instruction only ever waits for a token to pop or
// a slot to push into), so if this run completes, every run does. It also
// proves that every token pushed is popped by the end. A violation is a
// compiler error naming the instruction, never a hang on the device.
#pragma once

#include <string>
#include <vector>

#include "vdla/hw/config.h"
#include "vdla/hw/isa.h"

namespace vdla::accel {

struct TokenCheckResult {
  uint64_t tokens[4] = {};         // pushed per queue (load->compute, compute->load, compute->store, store->compute)
  uint32_t max_occupancy[4] = {};  // the most tokens a queue held
};

// Throws std::runtime_error "program 'NAME': ..." on a deadlock (with the
// instruction each module waits at and why) or on unbalanced tokens.
TokenCheckResult checkTokens(const std::vector<hw::Instruction>& program, const hw::HwConfig& cfg,
                             const std::string& name);

}  // namespace vdla::accel
