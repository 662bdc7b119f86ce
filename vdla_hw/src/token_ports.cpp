#include "vdla/hw/token_ports.h"

namespace vdla::hw {

const char* tokenQueueName(TokenQueue q) {
  switch (q) {
#define VDLA_HW_X(name, sv, index, label, producer, consumer) \
  case TokenQueue::name: return label;
    VDLA_HW_TOKEN_QUEUES(VDLA_HW_X)
#undef VDLA_HW_X
  }
  return "?";
}

TokenQueueEnds tokenQueueEnds(TokenQueue q) {
  switch (q) {
#define VDLA_HW_X(name, sv, index, label, producer, consumer) \
  case TokenQueue::name: return {Module::producer, Module::consumer};
    VDLA_HW_TOKEN_QUEUES(VDLA_HW_X)
#undef VDLA_HW_X
  }
  return {Module::Load, Module::Load};
}

TokenPorts tokenPorts(Module m) {
  // The neighbour "before" a module comes earlier in load, compute, store.
  TokenPorts p;
  for (int q = 0; q < kNumTokenQueues; ++q) {
    const TokenQueueEnds e = tokenQueueEnds(TokenQueue(q));
    if (e.consumer == m) (int(e.producer) < int(m) ? p.pop_prev : p.pop_next) = q;
    if (e.producer == m) (int(e.consumer) < int(m) ? p.push_prev : p.push_next) = q;
  }
  return p;
}

}  // namespace vdla::hw
