#pragma once
// The dependency-token queues and which of them each module's pop/push flags
// name, derived from the one table in vdla/hw/interface_table.h. fsim, the
// program statistics, the random program generator, the compiler's token
// check and the status decoders all ask here.
#include <cstdint>

#include "vdla/hw/interface_table.h"
#include "vdla/hw/isa.h"

namespace vdla::hw {

enum class TokenQueue : uint8_t {
#define VDLA_HW_X(name, sv, index, label, producer, consumer) name = index,
  VDLA_HW_TOKEN_QUEUES(VDLA_HW_X)
#undef VDLA_HW_X
};
constexpr int kNumTokenQueues = 4;

const char* tokenQueueName(TokenQueue q);  // "load->compute", ...

struct TokenQueueEnds {
  Module producer, consumer;
};
TokenQueueEnds tokenQueueEnds(TokenQueue q);

// The queues an instruction of module m pops from / pushes to (-1: that
// neighbour does not exist: load has no previous stage, store no next one).
struct TokenPorts {
  int pop_prev = -1, pop_next = -1, push_prev = -1, push_next = -1;
};
TokenPorts tokenPorts(Module m);

}  // namespace vdla::hw
